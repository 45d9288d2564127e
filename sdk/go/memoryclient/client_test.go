package memoryclient

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	memoryv1 "memory-service/sdk/go/gen/memory/v1"
)

// A fake core answering StatusService/GetStatus from a script of outcomes.
type fakeStatus struct {
	memoryv1.UnimplementedStatusServiceServer
	script []string
	calls  []time.Time
	auth   []string
}

func (f *fakeStatus) GetStatus(ctx context.Context, _ *memoryv1.GetStatusRequest) (*memoryv1.GetStatusResponse, error) {
	f.calls = append(f.calls, time.Now())
	md, _ := metadata.FromIncomingContext(ctx)
	f.auth = append(f.auth, md.Get("authorization")...)
	outcome := "ok"
	if len(f.script) > 0 {
		outcome, f.script = f.script[0], f.script[1:]
	}
	switch outcome {
	case "limited":
		s, err := status.New(codes.ResourceExhausted, "rate limit exceeded; retry in 1 s").
			WithDetails(&memoryv1.RetryInfo{RetryAfterSeconds: 1})
		if err != nil {
			return nil, err
		}
		return nil, s.Err()
	case "unavailable":
		return nil, status.Error(codes.Unavailable, "database unreachable")
	}
	return &memoryv1.GetStatusResponse{Status: "ok"}, nil
}

func startFake(t *testing.T, script ...string) (*fakeStatus, string) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := grpc.NewServer()
	fake := &fakeStatus{script: script}
	memoryv1.RegisterStatusServiceServer(server, fake)
	go server.Serve(lis)
	t.Cleanup(server.Stop)
	return fake, lis.Addr().String()
}

func TestRateLimitWaitsRetryInfoWithToken(t *testing.T) {
	fake, addr := startFake(t, "limited", "limited", "ok")
	client, err := New(addr, Options{Token: "kmt_test"})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	res, err := client.Status.GetStatus(context.Background(), &memoryv1.GetStatusRequest{})
	if err != nil || res.GetStatus() != "ok" {
		t.Fatalf("got %v, %v", res, err)
	}
	if len(fake.calls) != 3 {
		t.Fatalf("%d calls, want 3", len(fake.calls))
	}
	for i := 1; i < len(fake.calls); i++ {
		if gap := fake.calls[i].Sub(fake.calls[i-1]); gap < time.Second {
			t.Errorf("waited %v for a Retry-After of 1 s", gap)
		}
	}
	for _, a := range fake.auth {
		if a != "Bearer kmt_test" {
			t.Errorf("authorization %q", a)
		}
	}
	if len(fake.auth) != 3 {
		t.Errorf("authorization sent %d times, want once per attempt (3)", len(fake.auth))
	}
}

func TestAtMostThreeRetries(t *testing.T) {
	fake, addr := startFake(t, "unavailable", "unavailable", "unavailable", "unavailable", "unavailable")
	client, err := New(addr, Options{MaxRetries: 10, BaseDelay: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	_, err = client.Status.GetStatus(context.Background(), &memoryv1.GetStatusRequest{})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("got %v", err)
	}
	if len(fake.calls) != 4 {
		t.Fatalf("%d calls, want 4 (one and three retries)", len(fake.calls))
	}
}

func TestJitter(t *testing.T) {
	s, _ := status.New(codes.ResourceExhausted, "limited").WithDetails(&memoryv1.RetryInfo{RetryAfterSeconds: 10})
	if d, ok := RetryDelay(s.Err(), 1, 0, func() float64 { return 0 }); !ok || d != 10*time.Second {
		t.Errorf("%v %v", d, ok)
	}
	if d, _ := RetryDelay(s.Err(), 1, 0, func() float64 { return 1 }); d != 11*time.Second {
		t.Errorf("%v", d)
	}
	if _, ok := RetryDelay(status.Error(codes.ResourceExhausted, "no RetryInfo"), 1, 0, func() float64 { return 0 }); ok {
		t.Error("RESOURCE_EXHAUSTED without RetryInfo is not retried")
	}
	if d, _ := RetryDelay(status.Error(codes.Unavailable, "down"), 3, 100*time.Millisecond, func() float64 { return 1 }); d != 400*time.Millisecond {
		t.Errorf("%v", d)
	}
}

// The live service's rate limit (MEMORY_URL, MEMORY_LIMITED_TOKEN: 2 requests per minute).
func TestLiveRateLimitCarriesRetryInfo(t *testing.T) {
	target, token := os.Getenv("MEMORY_URL"), os.Getenv("MEMORY_LIMITED_TOKEN")
	if target == "" || token == "" {
		t.Skip("needs MEMORY_URL and MEMORY_LIMITED_TOKEN")
	}
	client, err := New(target, Options{Token: token, MaxDelay: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	var last error
	for i := 0; i < 5 && last == nil; i++ {
		_, last = client.Recall.Recall(context.Background(), &memoryv1.RecallRequest{Query: "limit"})
	}
	if status.Code(last) != codes.ResourceExhausted {
		t.Fatalf("got %v", last)
	}
	if wait, ok := RetryAfter(last); !ok || wait < time.Second || wait > time.Minute {
		t.Fatalf("retry after %v %v", wait, ok)
	}
}

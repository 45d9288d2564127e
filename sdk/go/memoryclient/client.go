// Package memoryclient is a thin layer over the buf-generated gRPC clients of the memory service
// (package memoryv1 in ../gen/memory/v1): one connection to core's gRPC port, a bearer token on
// every call, and the retries the service's contract asks of clients — on RESOURCE_EXHAUSTED wait
// the RetryInfo detail's seconds, on UNAVAILABLE back off exponentially, both with jitter, at most
// three times.
package memoryclient

import (
	"context"
	"crypto/tls"
	"math/rand"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	memoryv1 "memory-service/sdk/go/gen/memory/v1"
)

// MaxRetries is the contract's limit: at most three retries after the first attempt.
const MaxRetries = 3

// Options configure New. The zero value is an insecure connection without a token.
type Options struct {
	// Token is sent as "authorization: Bearer <token>"; TokenFunc, if set, is called per call instead.
	Token     string
	TokenFunc func(ctx context.Context) (string, error)
	// TLS: nil for plaintext (h2c), else the TLS configuration.
	TLS *tls.Config
	// MaxRetries caps retries (at most 3; 0 means 3, negative disables).
	MaxRetries int
	// MaxDelay: a Retry-After above it fails the call at once (default 60 s).
	MaxDelay time.Duration
	// BaseDelay of the UNAVAILABLE backoff, doubled per retry (default 250 ms).
	BaseDelay time.Duration
	// Timeout per call when the context has no deadline (default 30 s).
	Timeout time.Duration
}

// Client holds the generated clients of every memory.v1 service over one connection.
type Client struct {
	Conn     *grpc.ClientConn
	Ingest   memoryv1.IngestServiceClient
	Recall   memoryv1.RecallServiceClient
	Graph    memoryv1.GraphServiceClient
	Status   memoryv1.StatusServiceClient
	Tenancy  memoryv1.TenancyServiceClient
	Webhooks memoryv1.WebhookServiceClient
}

// New connects to core's gRPC address ("host:port").
func New(target string, opts Options) (*Client, error) {
	if opts.MaxRetries == 0 || opts.MaxRetries > MaxRetries {
		opts.MaxRetries = MaxRetries
	}
	if opts.MaxDelay == 0 {
		opts.MaxDelay = 60 * time.Second
	}
	if opts.BaseDelay == 0 {
		opts.BaseDelay = 250 * time.Millisecond
	}
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	transport := grpc.WithInsecure()
	if opts.TLS != nil {
		transport = grpc.WithTransportCredentials(credentials.NewTLS(opts.TLS))
	}
	conn, err := grpc.Dial(target, transport, grpc.WithChainUnaryInterceptor(retryInterceptor(opts), tokenInterceptor(opts)))
	if err != nil {
		return nil, err
	}
	return &Client{
		Conn:     conn,
		Ingest:   memoryv1.NewIngestServiceClient(conn),
		Recall:   memoryv1.NewRecallServiceClient(conn),
		Graph:    memoryv1.NewGraphServiceClient(conn),
		Status:   memoryv1.NewStatusServiceClient(conn),
		Tenancy:  memoryv1.NewTenancyServiceClient(conn),
		Webhooks: memoryv1.NewWebhookServiceClient(conn),
	}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.Conn.Close() }

func tokenInterceptor(opts Options) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply interface{}, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, callOpts ...grpc.CallOption) error {
		token := opts.Token
		if opts.TokenFunc != nil {
			t, err := opts.TokenFunc(ctx)
			if err != nil {
				return err
			}
			token = t
		}
		if token != "" {
			ctx = appendAuthorization(ctx, token)
		}
		return invoker(ctx, method, req, reply, cc, callOpts...)
	}
}

// RetryAfter is the wait the server asked for in a RetryInfo detail, and whether there was one.
func RetryAfter(err error) (time.Duration, bool) {
	for _, detail := range status.Convert(err).Details() {
		if info, ok := detail.(*memoryv1.RetryInfo); ok && info.GetRetryAfterSeconds() > 0 {
			return time.Duration(info.GetRetryAfterSeconds()) * time.Second, true
		}
	}
	return 0, false
}

// RetryDelay is the wait before retry number retry (1-based) and whether the error is retryable:
// Retry-After plus up to 20 % jitter (at least 100 ms, at most 1 s) for a rate limit; half to all of
// base × 2^(retry-1) for UNAVAILABLE. random returns a number in [0, 1).
func RetryDelay(err error, retry int, base time.Duration, random func() float64) (time.Duration, bool) {
	switch status.Code(err) {
	case codes.ResourceExhausted:
		wait, ok := RetryAfter(err)
		if !ok {
			return 0, false // not a rate limit we know how to wait for
		}
		spread := time.Duration(float64(wait) * 0.2)
		if spread < 100*time.Millisecond {
			spread = 100 * time.Millisecond
		}
		if spread > time.Second {
			spread = time.Second
		}
		return wait + time.Duration(random()*float64(spread)), true
	case codes.Unavailable:
		limit := base << uint(retry-1)
		return limit/2 + time.Duration(random()*float64(limit/2)), true
	default:
		return 0, false
	}
}

func retryInterceptor(opts Options) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply interface{}, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, callOpts ...grpc.CallOption) error {
		if _, has := ctx.Deadline(); !has {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
			defer cancel()
		}
		for retry := 1; ; retry++ {
			err := invoker(ctx, method, req, reply, cc, callOpts...)
			if err == nil || opts.MaxRetries < 0 || retry > opts.MaxRetries {
				return err
			}
			delay, ok := RetryDelay(err, retry, opts.BaseDelay, rand.Float64)
			if !ok || delay > opts.MaxDelay {
				return err
			}
			timer := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				timer.Stop()
				return err
			case <-timer.C:
			}
		}
	}
}

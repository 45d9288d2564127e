// store → recall → update_fact → recall_at_time with the Go SDK.
//
//	MEMORY_URL=127.0.0.1:50051 MEMORY_TOKEN=kmt_… go run ./examples/go/walkthrough
//
// MEMORY_URL is core's gRPC address (GRPC_PORT). sdk/go/README.md says how to build offline.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	memoryv1 "memory-service/sdk/go/gen/memory/v1"
	"memory-service/sdk/go/memoryclient"
)

func say(step string, values map[string]interface{}) {
	values["step"] = step
	line, _ := json.Marshal(values)
	fmt.Println(string(line))
}

func main() {
	target := os.Getenv("MEMORY_URL")
	if target == "" {
		target = "127.0.0.1:50051"
	}
	token := os.Getenv("MEMORY_TOKEN")
	if token == "" {
		fmt.Fprintln(os.Stderr, "MEMORY_TOKEN: set it to an API token (kmt_…)")
		os.Exit(2)
	}
	if err := run(target, token); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(target, token string) error {
	client, err := memoryclient.New(target, memoryclient.Options{Token: token})
	if err != nil {
		return err
	}
	defer client.Close()
	ctx := context.Background()

	// 1. store: an append-only memory; indexed (full text + vector) when the call returns.
	stored, err := client.Ingest.StoreMemory(ctx, &memoryv1.StoreMemoryRequest{
		Title:      strPtr("ACME office"),
		Content:    "The ACME team works from the Berlin office on Torstraße.",
		MemoryType: memoryv1.MemoryType_MEMORY_TYPE_SEMANTIC,
		Tags:       []string{"acme", "office"},
	})
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	memory := stored.GetMemory()
	say("store", map[string]interface{}{"memoryId": memory.GetMemoryId(), "chunks": memory.GetChunksWritten()})
	beforeUpdate := time.Now()

	// 2. recall: hybrid search, re-ranked.
	question := "Where does the ACME team work?"
	first, err := client.Recall.Recall(ctx, &memoryv1.RecallRequest{Query: question, K: int32Ptr(3)})
	if err != nil || len(first.GetHits()) == 0 {
		return fmt.Errorf("recall: %v (%d hits)", err, len(first.GetHits()))
	}
	say("recall", map[string]interface{}{"top": first.GetHits()[0].GetContent(), "memoryId": first.GetHits()[0].GetMemoryId()})

	// 3. update_fact: a new version; the old one stays queryable at the times it was valid.
	updated, err := client.Graph.UpdateFact(ctx, &memoryv1.UpdateFactRequest{
		TargetId:     memory.GetMemoryId(),
		NewTitle:     "ACME office",
		NewContent:   "The ACME team moved to the Hamburg office at the harbour.",
		UpdateReason: strPtr("office move"),
	})
	if err != nil {
		return fmt.Errorf("update_fact: %w", err)
	}
	say("update_fact", map[string]interface{}{"oldMemoryId": updated.GetOldMemoryId(), "newMemoryId": updated.GetNewMemoryId()})

	// 4. recall now (the new version) and at a time before the update (the old one).
	now, err := client.Recall.Recall(ctx, &memoryv1.RecallRequest{Query: question, K: int32Ptr(3)})
	if err != nil || len(now.GetHits()) == 0 {
		return fmt.Errorf("recall now: %v", err)
	}
	say("recall_now", map[string]interface{}{"top": now.GetHits()[0].GetContent(), "memoryId": now.GetHits()[0].GetMemoryId()})
	then, err := client.Recall.Recall(ctx, &memoryv1.RecallRequest{
		Query: question,
		K:     int32Ptr(3),
		AsOf:  timestamppb.New(beforeUpdate),
	})
	if err != nil || len(then.GetHits()) == 0 {
		return fmt.Errorf("recall at time: %v", err)
	}
	hit := then.GetHits()[0]
	var validTo interface{}
	if hit.GetValidTo() != nil {
		validTo = hit.GetValidTo().AsTime().Format(time.RFC3339Nano)
	}
	say("recall_at_time", map[string]interface{}{
		"asOf": beforeUpdate.UTC().Format(time.RFC3339Nano), "top": hit.GetContent(),
		"memoryId": hit.GetMemoryId(), "validTo": validTo,
	})
	return nil
}

func strPtr(s string) *string { return &s }
func int32Ptr(n int32) *int32 { return &n }

package onnx_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"

	"github.com/recall-engine/recall/internal/modeltest"
	"github.com/recall-engine/recall/rerank/onnx"
)

const benchQuery = "treatment reduced the risk of disease in patients with cancer" // 10 tokens

// pairs returns 32 documents that make (query, document) pairs of total tokens with the
// special tokens.
func pairs(total int) []string {
	docs := make([]string, 32)
	for i := range docs {
		docs[i] = modeltest.Words(total-3-10, i)
	}
	return docs
}

// BenchmarkCrossEncoder: ms per pair through this package, batches of 32, on a MiniLM-L6
// shaped model with random weights.
func BenchmarkCrossEncoder(b *testing.B) {
	dir := modeltest.BenchModel(b, "minilm-l6-cross-encoder")
	c, err := onnx.New(context.Background(), onnx.Config{Dir: dir, BatchSize: 32})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close() //nolint:errcheck // benchmark teardown
	for _, total := range []int{64, 192} {
		docs := pairs(total)
		if n := c.Count(benchQuery) + c.Count(docs[0]) + 3; n != total {
			b.Fatalf("pair of %d tokens, want %d", n, total)
		}
		b.Run(fmt.Sprintf("tokens=%d", total), func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				if _, err := c.Score(context.Background(), benchQuery, docs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N*len(docs)), "ms/pair")
		})
	}
}

// BenchmarkCrossEncoderRaw is the same work as a direct hugot pipeline call, to measure this
// package's overhead (tokenizing twice to fit lengths, reordering scores).
func BenchmarkCrossEncoderRaw(b *testing.B) {
	dir := modeltest.BenchModel(b, "minilm-l6-cross-encoder")
	ctx := context.Background()
	s, err := hugot.NewGoSession(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Destroy() //nolint:errcheck // benchmark teardown
	p, err := hugot.NewPipeline(s, hugot.CrossEncoderConfig{ModelPath: dir, Name: "raw", Options: []hugot.CrossEncoderOption{pipelines.WithBatchSize(32)}})
	if err != nil {
		b.Fatal(err)
	}
	for _, total := range []int{64, 192} {
		docs := pairs(total)
		b.Run(fmt.Sprintf("tokens=%d", total), func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				if _, err := p.RunPipeline(ctx, benchQuery, docs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N*len(docs)), "ms/pair")
		})
	}
}

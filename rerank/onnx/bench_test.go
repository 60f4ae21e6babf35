package onnx_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"

	"github.com/recall-engine/recall/internal/hf"
	"github.com/recall-engine/recall/internal/ortrun"
	"github.com/recall-engine/recall/internal/testkit/modeltest"
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

func perPair(b *testing.B, start time.Time, n int) {
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N*n), "ms/pair")
}

// BenchmarkCrossEncoder: ms per pair through this package, batches of 32, on a MiniLM-L6
// shaped model with random weights, for each backend in the binary.
func BenchmarkCrossEncoder(b *testing.B) {
	dir := modeltest.BenchModel(b, "minilm-l6-cross-encoder")
	bs := []onnx.Backend{onnx.BackendGo}
	if ortrun.Built {
		bs = append(bs, onnx.BackendORT)
	}
	for _, backend := range bs {
		c, err := onnx.New(context.Background(), onnx.Config{Dir: dir, BatchSize: 32, Backend: backend})
		if err != nil {
			b.Fatal(err)
		}
		for _, total := range []int{64, 192} {
			docs := pairs(total)
			if n := c.Count(benchQuery) + c.Count(docs[0]) + 3; n != total {
				b.Fatalf("pair of %d tokens, want %d", n, total)
			}
			b.Run(fmt.Sprintf("backend=%s/tokens=%d", backend, total), func(b *testing.B) {
				start := time.Now()
				for b.Loop() {
					if _, err := c.Score(context.Background(), benchQuery, docs); err != nil {
						b.Fatal(err)
					}
				}
				perPair(b, start, len(docs))
			})
		}
		_ = c.Close()
	}
}

// BenchmarkCrossEncoderRaw is the same work as a direct backend call (hugot's pipeline; ONNX
// Runtime's session on a batch tokenized beforehand), to measure this package's overhead.
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
		b.Run(fmt.Sprintf("backend=go/tokens=%d", total), func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				if _, err := p.RunPipeline(ctx, benchQuery, docs); err != nil {
					b.Fatal(err)
				}
			}
			perPair(b, start, len(docs))
		})
	}
	if !ortrun.Built {
		return
	}
	d, err := hf.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	sess, err := ortrun.Open(d, "")
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close() //nolint:errcheck // benchmark teardown
	for _, total := range []int{64, 192} {
		batch, err := d.Pairs(benchQuery, pairs(total))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("backend=ort/tokens=%d", total), func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				if _, _, err := sess.Run(batch); err != nil {
					b.Fatal(err)
				}
			}
			perPair(b, start, batch.N)
		})
	}
}

package onnx_test

import (
	"context"
	"testing"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/embed/onnx"
	"github.com/recall-engine/recall/internal/hf"
	"github.com/recall-engine/recall/internal/ortrun"
	"github.com/recall-engine/recall/internal/testkit/modeltest"
)

// benchQuery is a 16-token question, a typical agent query.
var benchQuery = modeltest.Words(16, 3)

// BenchmarkQueryEmbedding: latency of embedding one query through this package on a
// MiniLM-L6 shaped model with random weights, for each backend in the binary.
func BenchmarkQueryEmbedding(b *testing.B) {
	dir := modeltest.BenchModel(b, "minilm-l6-embedder")
	for _, backend := range backends() {
		e, err := onnx.New(context.Background(), onnx.Config{Dir: dir, Backend: backend})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("backend="+string(backend), func(b *testing.B) {
			for b.Loop() {
				if _, err := e.Embed(context.Background(), []string{benchQuery}, embed.Query); err != nil {
					b.Fatal(err)
				}
			}
		})
		_ = e.Close()
	}
}

// BenchmarkQueryEmbeddingRaw is the same call straight to the backend: hugot's pipeline, or
// ONNX Runtime's session on a batch tokenized beforehand.
func BenchmarkQueryEmbeddingRaw(b *testing.B) {
	dir := modeltest.BenchModel(b, "minilm-l6-embedder")
	ctx := context.Background()
	s, err := hugot.NewGoSession(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Destroy() //nolint:errcheck // benchmark teardown
	p, err := hugot.NewPipeline(s, hugot.FeatureExtractionConfig{ModelPath: dir, Name: "raw",
		Options: []hugot.FeatureExtractionOption{pipelines.WithNormalization()}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("backend=go", func(b *testing.B) {
		for b.Loop() {
			if _, err := p.RunPipeline(ctx, []string{benchQuery}); err != nil {
				b.Fatal(err)
			}
		}
	})
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
	batch, err := d.Single([]string{benchQuery})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("backend=ort", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := sess.Run(batch); err != nil {
				b.Fatal(err)
			}
		}
	})
}

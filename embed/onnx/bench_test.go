package onnx_test

import (
	"context"
	"testing"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/embed/onnx"
	"github.com/recall-engine/recall/internal/modeltest"
)

// benchQuery is a 16-token question, a typical agent query.
var benchQuery = modeltest.Words(16, 3)

// BenchmarkQueryEmbedding: latency of embedding one query through this package on a
// MiniLM-L6 shaped model with random weights.
func BenchmarkQueryEmbedding(b *testing.B) {
	e, err := onnx.New(context.Background(), onnx.Config{Dir: modeltest.BenchModel(b, "minilm-l6-embedder")})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close() //nolint:errcheck // benchmark teardown
	for b.Loop() {
		if _, err := e.Embed(context.Background(), []string{benchQuery}, embed.Query); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueryEmbeddingRaw is the same call straight to hugot's pipeline.
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
	for b.Loop() {
		if _, err := p.RunPipeline(ctx, []string{benchQuery}); err != nil {
			b.Fatal(err)
		}
	}
}

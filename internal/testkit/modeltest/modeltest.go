// Package modeltest is the conformance suite every embedder passes: output shapes, unit
// length, determinism, batch result equal to single results, typed errors for bad text, and
// cancellation. Only tests import it.
package modeltest

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/recall-engine/recall/embed"
)

var texts = []string{
	"Aspirin lowers the risk of heart attacks in older adults.",
	"The Eiffel Tower was finished in 1889 for the World's Fair.",
	"Mitochondria produce most of the cell's ATP.",
	"¿Dónde está la biblioteca? 图书馆在哪里?",
	"x",
}

// Embedder runs the suite on e; tol is the allowed difference between a text embedded alone
// and in a batch (0 for exact providers; neural models batch with padding).
func Embedder(t *testing.T, e embed.Embedder, tol float64) {
	t.Helper()
	ctx := context.Background()
	batch, err := e.Embed(ctx, texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(batch), len(texts))
	}
	for i, v := range batch {
		if len(v) != e.Dim() {
			t.Fatalf("text %d: length %d, Dim %d", i, len(v), e.Dim())
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-4 {
			t.Fatalf("text %d: norm² %v, want 1", i, n)
		}
		one, err := e.Embed(ctx, texts[i:i+1], embed.Document)
		if err != nil {
			t.Fatal(err)
		}
		for j := range v {
			if math.Abs(float64(v[j]-one[0][j])) > tol {
				t.Fatalf("text %d: batch and single differ at %d: %v vs %v", i, j, v[j], one[0][j])
			}
		}
	}
	again, err := e.Embed(ctx, texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	for i := range batch {
		for j := range batch[i] {
			if batch[i][j] != again[i][j] {
				t.Fatalf("text %d: not deterministic", i)
			}
		}
	}
	// Different texts give different vectors.
	if cos(batch[0], batch[1]) > 0.99 {
		t.Fatalf("two unrelated texts have cosine %v", cos(batch[0], batch[1]))
	}
	if _, err := e.Embed(ctx, []string{}, embed.Query); err != nil {
		t.Fatalf("empty batch: %v", err)
	}
	for _, bad := range []struct {
		text string
		want error
	}{{"  \n\t", embed.ErrEmptyText}, {"", embed.ErrEmptyText}, {"a\x00b", nil}, {"\xff\xfe", nil}} {
		_, err := e.Embed(ctx, []string{"fine", bad.text}, embed.Document)
		var ie *embed.InputError
		if !errors.As(err, &ie) || ie.Index != 1 {
			t.Fatalf("text %q: error %v, want an *embed.InputError for index 1", bad.text, err)
		}
		if bad.want != nil && !errors.Is(err, bad.want) {
			t.Fatalf("text %q: %v, want %v", bad.text, err, bad.want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	many := make([]string, 1000)
	for i := range many {
		many[i] = texts[i%len(texts)]
	}
	if _, err := e.Embed(cctx, many, embed.Document); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v, want context.Canceled", err)
	}
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

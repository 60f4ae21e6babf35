package modeltest

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/recall-engine/recall/rerank"
)

var rerankQuery = "Does aspirin lower the risk of heart attacks?"

var rerankDocs = []string{
	"Aspirin lowers the risk of heart attacks in older adults.",
	"The Eiffel Tower was finished in 1889 for the World's Fair.",
	"Mitochondria produce most of the cell's ATP.",
	"Low-dose aspirin and cardiovascular events: a randomized trial.",
	"x",
	"",
}

// Reranker runs the suite on r: one finite score per document, scores aligned with input
// order (a permuted batch gives the permuted scores), determinism, batch equal to single
// calls within tol, typed errors for bad text, and cancellation.
func Reranker(t *testing.T, r rerank.Reranker, tol float64) {
	t.Helper()
	ctx := context.Background()
	got, err := r.Score(ctx, rerankQuery, rerankDocs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rerankDocs) {
		t.Fatalf("%d scores for %d documents", len(got), len(rerankDocs))
	}
	for i, s := range got {
		if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
			t.Fatalf("document %d: score %v", i, s)
		}
	}
	if r.Name() == "" {
		t.Fatal("empty Name")
	}
	again, err := r.Score(ctx, rerankQuery, rerankDocs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != again[i] {
			t.Fatalf("document %d: %v then %v: not deterministic", i, got[i], again[i])
		}
	}
	if _, isNone := r.(rerank.None); !isNone {
		// Scores follow their documents when the batch is permuted (reversed).
		rev := make([]string, len(rerankDocs))
		for i, d := range rerankDocs {
			rev[len(rev)-1-i] = d
		}
		rs, err := r.Score(ctx, rerankQuery, rev)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if d := math.Abs(float64(got[i] - rs[len(rs)-1-i])); d > tol {
				t.Fatalf("document %d: %v in order, %v reversed", i, got[i], rs[len(rs)-1-i])
			}
		}
		for i, d := range rerankDocs {
			one, err := r.Score(ctx, rerankQuery, []string{d})
			if err != nil {
				t.Fatal(err)
			}
			if len(one) != 1 || math.Abs(float64(one[0]-got[i])) > tol {
				t.Fatalf("document %d: %v alone, %v in the batch", i, one, got[i])
			}
		}
	}
	if s, err := r.Score(ctx, rerankQuery, nil); err != nil || len(s) != 0 {
		t.Fatalf("no documents: %v, %v", s, err)
	}
	if _, err := r.Score(ctx, " \n", rerankDocs); !errors.Is(err, rerank.ErrEmptyQuery) {
		t.Fatalf("blank query: %v, want ErrEmptyQuery", err)
	}
	for _, bad := range []string{"a\x00b", "\xff\xfe"} {
		_, err := r.Score(ctx, rerankQuery, []string{"fine", bad})
		var ie *rerank.InputError
		if !errors.As(err, &ie) || ie.Index != 1 {
			t.Fatalf("document %q: error %v, want an *rerank.InputError for index 1", bad, err)
		}
		_, err = r.Score(ctx, bad, []string{"fine"})
		if !errors.As(err, &ie) || ie.Index != -1 {
			t.Fatalf("query %q: error %v, want an *rerank.InputError for index -1", bad, err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	many := make([]string, 200)
	for i := range many {
		many[i] = rerankDocs[i%len(rerankDocs)]
	}
	if _, err := r.Score(cctx, rerankQuery, many); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v, want context.Canceled", err)
	}
}

package eval_test

import (
	"math"
	"testing"

	"github.com/recall-engine/recall/eval"
)

func TestPairedRandomizationExact(t *testing.T) {
	t.Parallel()
	// Three paired differences (1, 1, 1): of the 8 sign assignments, two reach |sum| >= 3
	// (all plus, all minus), so the exact p is 2/8 = 0.25. Many random trials approach it.
	p := eval.PairedRandomization([]float64{2, 3, 4}, []float64{1, 2, 3}, 200000, 1)
	if math.Abs(p-0.25) > 0.005 {
		t.Fatalf("p = %v, want about 0.25", p)
	}
	// Identical systems: every assignment ties the observed 0: p = 1.
	if p := eval.PairedRandomization([]float64{1, 2}, []float64{1, 2}, 1000, 1); p != 1 {
		t.Fatalf("identical: p = %v", p)
	}
	// A consistent difference over 20 queries: only the two all-same-sign assignments of
	// 2^20 reach it; p is (count+1)/(trials+1) with count almost surely 0.
	a, b := make([]float64, 20), make([]float64, 20)
	for i := range a {
		a[i], b[i] = 0.5, 0.4
	}
	if p := eval.PairedRandomization(a, b, 9999, 3); p != 1.0/10000 {
		t.Fatalf("consistent difference: p = %v, want 1e-4", p)
	}
	// Deterministic for a seed.
	x := []float64{0.1, 0.9, 0.3, 0.7, 0.2}
	y := []float64{0.2, 0.5, 0.4, 0.6, 0.1}
	if eval.PairedRandomization(x, y, 5000, 7) != eval.PairedRandomization(x, y, 5000, 7) {
		t.Fatal("not deterministic")
	}
}

func TestHolm(t *testing.T) {
	t.Parallel()
	// Sorted 0.01, 0.02, 0.03, 0.5 times 4, 3, 2, 1 = 0.04, 0.06, 0.06, 0.5; monotone.
	got := eval.Holm([]float64{0.03, 0.5, 0.01, 0.02})
	want := []float64{0.06, 0.5, 0.04, 0.06}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	// Step-down monotonicity: 0.01*3 = 0.03, 0.04*2 = 0.08, 0.03? no: sorted 0.01, 0.04,
	// 0.045 -> 0.03, 0.08, 0.045 -> max-accumulated 0.03, 0.08, 0.08.
	got = eval.Holm([]float64{0.045, 0.01, 0.04})
	want = []float64{0.08, 0.03, 0.08}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if got := eval.Holm([]float64{0.9, 0.8}); got[0] != 1 || got[1] != 1 {
		t.Fatalf("capped: %v", got)
	}
}

package ranker_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/recall-engine/recall/ranker"
)

// bagged is FitBagged's model.
func bagged(t *testing.T, qs []ranker.Query, o ranker.FitOptions, bags int) *ranker.Model {
	t.Helper()
	w, trees, err := ranker.FitBagged(qs, o, bags)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ranker.New("bag", "", w)
	if err != nil {
		t.Fatal(err)
	}
	if m, err = m.WithTrees(trees); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFitBagged: one bag is the plain fit, exactly; on queries that are all the same query,
// every bootstrap sample is that query again, so the average of the bags scores every
// candidate as the plain fit does (the weights averaged, each bag's trees at 1/bags); the
// bags are deterministic and rank held-out queries as well as the plain fit.
func TestFitBagged(t *testing.T) {
	t.Parallel()
	o := ranker.FitOptions{Trees: ranker.TreeOptions{Trees: 20, Depth: 2}}
	plain := func(qs []ranker.Query) *ranker.Model {
		lin, err := ranker.New("plain", "", ranker.Fit(qs, o))
		if err != nil {
			t.Fatal(err)
		}
		m, err := lin.WithTrees(ranker.FitTrees(qs, lin, o.Trees))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	r := rand.New(rand.NewPCG(7, 7))
	var one ranker.Query
	for k := range 20 {
		x := make([]float64, ranker.NumFeatures)
		for j := range x {
			x[j] = r.Float64()
		}
		one.X, one.Rel = append(one.X, x), append(one.Rel, k%6 == 0)
	}
	same := make([]ranker.Query, 30)
	for i := range same {
		same[i] = one
	}
	p, b := plain(same), bagged(t, same, o, 4)
	if len(b.Trees) != 4*len(p.Trees) {
		t.Fatalf("4 bags of %d trees: %d trees", len(p.Trees), len(b.Trees))
	}
	for i, x := range one.X {
		if sp, sb := p.Score(x), b.Score(x); math.Abs(sp-sb) > 1e-9*(1+math.Abs(sp)) {
			t.Fatalf("candidate %d: plain fit %.12g, 4 bags of the same query %.12g", i, sp, sb)
		}
	}

	qs := make([]ranker.Query, 50)
	for i := range qs {
		var q ranker.Query
		for k := range 20 {
			x := make([]float64, ranker.NumFeatures)
			for j := range x {
				x[j] = r.Float64()
			}
			rel := k < 2
			if rel {
				x[0] += 1
			}
			q.X, q.Rel = append(q.X, x), append(q.Rel, rel)
		}
		qs[i] = q
	}
	p, one1 := plain(qs), bagged(t, qs, o, 1)
	b, again := bagged(t, qs, o, 5), bagged(t, qs, o, 5)
	for i, x := range qs[0].X {
		if p.Score(x) != one1.Score(x) {
			t.Fatalf("candidate %d: plain %v, one bag %v", i, p.Score(x), one1.Score(x))
		}
		if b.Score(x) != again.Score(x) {
			t.Fatalf("candidate %d: two runs of 5 bags: %v, %v", i, b.Score(x), again.Score(x))
		}
	}
	if b.Score(qs[0].X[0]) == p.Score(qs[0].X[0]) {
		t.Fatal("5 bags score like the plain fit: the samples are not drawn")
	}
	top2 := func(m *ranker.Model) float64 {
		found := 0
		for _, q := range qs[:10] {
			for _, i := range m.Order(q.X)[:2] {
				if q.Rel[i] {
					found++
				}
			}
		}
		return float64(found) / 20
	}
	if top2(b) < 0.95 {
		t.Fatalf("5 bags put %.2f of the relevant first; one feature sets them apart", top2(b))
	}
}

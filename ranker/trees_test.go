package ranker_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recall-engine/recall/ranker"
)

// TestTreeScore checks a boosted model's score and contributions against a hand-built tree
// walked by hand, and that the model file keeps them.
func TestTreeScore(t *testing.T) {
	t.Parallel()
	best, cover := indexOf(t, "best"), indexOf(t, "cover")
	// best <= 0.02 ? (cover <= 0.5 ? -1 : +2) : +3; every node's value is its candidates' mean.
	tree := ranker.Tree{Nodes: []ranker.Node{
		{Feature: "best", Threshold: 0.02, Left: 1, Right: 2, Value: 0.5},
		{Feature: "cover", Threshold: 0.5, Left: 3, Right: 4, Value: 0},
		{Value: 3},
		{Value: -1},
		{Value: 2},
	}}
	lin, err := ranker.New("t", "", map[string]float64{"cover": 10})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lin.WithTrees([]ranker.Tree{tree, tree})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ best, cover, leaf, dBest, dCover float64 }{
		{0.01, 0.2, -1, 0 - 0.5, -1 - 0},
		{0.02, 0.6, 2, 0 - 0.5, 2 - 0},
		{0.03, 0.2, 3, 3 - 0.5, 0},
	} {
		x := make([]float64, ranker.NumFeatures)
		x[best], x[cover] = c.best, c.cover
		want := 10*c.cover + 2*c.leaf
		if got := m.Score(x); math.Abs(got-want) > 1e-12 {
			t.Errorf("best %v cover %v: score %v, want %v", c.best, c.cover, got, want)
		}
		parts := m.Contributions(x)
		if math.Abs(parts[best]-2*c.dBest) > 1e-12 || math.Abs(parts[cover]-(10*c.cover+2*c.dCover)) > 1e-12 {
			t.Errorf("best %v cover %v: contributions best %v cover %v", c.best, c.cover, parts[best], parts[cover])
		}
		sum := 0.0
		for _, p := range parts {
			sum += p
		}
		if math.Abs(sum+2*0.5-m.Score(x)) > 1e-12 {
			t.Errorf("contributions sum to %v, want the score %v less the roots' 1", sum, m.Score(x))
		}
		b, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ranker.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		if back.Score(x) != m.Score(x) {
			t.Errorf("round trip: %v, want %v", back.Score(x), m.Score(x))
		}
	}
	if got := m.Names(); len(got) != 2 || got[0] != "best" || got[1] != "cover" {
		t.Errorf("names %v, want [best cover]", got)
	}
}

// TestFitTrees: relevance that no linear order can find (a candidate is relevant when its
// cover is in a middle band) is found by the trees fitted on top of the linear fit, on
// queries they were not fitted on; the fit is deterministic.
func TestFitTrees(t *testing.T) {
	t.Parallel()
	cover := indexOf(t, "cover")
	gen := func(seed uint64, n int) []ranker.Query {
		r := rand.New(rand.NewPCG(seed, 5))
		var qs []ranker.Query
		for range n {
			var q ranker.Query
			for k := range 30 {
				x := make([]float64, ranker.NumFeatures)
				for j := range x {
					x[j] = r.Float64()
				}
				rel := k < 3
				switch {
				case rel:
					x[cover] = 0.4 + 0.2*r.Float64()
				case r.IntN(2) == 0:
					x[cover] = 0.35 * r.Float64()
				default:
					x[cover] = 0.65 + 0.35*r.Float64()
				}
				q.X, q.Rel = append(q.X, x), append(q.Rel, rel)
			}
			qs = append(qs, q)
		}
		return qs
	}
	train := gen(1, 60)
	lin, err := ranker.New("lin", "", ranker.Fit(train, ranker.FitOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	o := ranker.TreeOptions{Trees: 50, Depth: 2}
	boosted, err := lin.WithTrees(ranker.FitTrees(train, lin, o))
	if err != nil {
		t.Fatal(err)
	}
	again := ranker.FitTrees(train, lin, o)
	for i := range again {
		for j, n := range again[i].Nodes {
			if n != boosted.Trees[i].Nodes[j] {
				t.Fatalf("tree %d node %d: %+v then %+v", i, j, boosted.Trees[i].Nodes[j], n)
			}
		}
	}
	top3 := func(m *ranker.Model, qs []ranker.Query) float64 {
		found := 0
		for _, q := range qs {
			for _, i := range m.Order(q.X)[:3] {
				if q.Rel[i] {
					found++
				}
			}
		}
		return float64(found) / float64(3*len(qs))
	}
	test := gen(2, 40)
	l, b := top3(lin, test), top3(boosted, test)
	if b < 0.85 || l > 0.5 {
		t.Fatalf("relevant in the first three, held out: linear %.3f, boosted %.3f; want the linear order near chance and the trees near 1", l, b)
	}
}

// TestTreesOnly: trees told to split only on some features never read another, even when
// another one separates the relevant candidates better (here cover, as in TestFitTrees);
// with none of the allowed features varying they split on nothing, so every candidate gets
// the same sum and the order is the weights' alone.
func TestTreesOnly(t *testing.T) {
	t.Parallel()
	cover, echo := indexOf(t, "cover"), indexOf(t, "echo_prev")
	r := rand.New(rand.NewPCG(9, 9))
	var qs []ranker.Query
	for range 40 {
		var q ranker.Query
		for k := range 20 {
			x := make([]float64, ranker.NumFeatures)
			rel := k < 2
			x[cover] = map[bool]float64{true: 0.5, false: []float64{0.1, 0.9}[r.IntN(2)]}[rel]
			if !rel && r.IntN(3) == 0 {
				x[echo] = 1 // some irrelevant ones echo: the split the trees may use
			}
			q.X, q.Rel = append(q.X, x), append(q.Rel, rel)
		}
		qs = append(qs, q)
	}
	trees := ranker.FitTrees(qs, nil, ranker.TreeOptions{Trees: 10, Depth: 2, Only: ranker.PlaceFeatures})
	used := map[string]bool{}
	for _, tr := range trees {
		for _, n := range tr.Nodes {
			if n.Feature != "" {
				used[n.Feature] = true
			}
		}
	}
	if len(used) != 1 || !used["echo_prev"] {
		t.Fatalf("the trees split on %v, want echo_prev alone (cover is not allowed)", used)
	}
	for i := range qs {
		qs[i].X = slices.Clone(qs[i].X)
		for _, x := range qs[i].X {
			x[echo] = 0
		}
	}
	if trees := ranker.FitTrees(qs, nil, ranker.TreeOptions{Trees: 5, Depth: 2, Only: ranker.PlaceFeatures}); len(trees) != 5 || len(trees[0].Nodes) != 1 {
		t.Fatalf("with no allowed feature varying: %d trees, the first of %d nodes; want leaves alone", len(trees), len(trees[0].Nodes))
	}
}

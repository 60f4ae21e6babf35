package ranker_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/recall-engine/recall/ranker"
)

// kindQueries are n queries of 20 candidates: turns (the documents' block at zero) whose
// relevant two have a high nb_best (and cover 0), or documents (the turns' block at zero)
// whose relevant two have a high cover; every other feature of the candidate's block is noise.
func kindQueries(t *testing.T, seed uint64, n int, doc bool) []ranker.Query {
	r := rand.New(rand.NewPCG(seed, 9))
	prefix, signal := "", "nb_best"
	if doc {
		prefix, signal = "doc_", "cover"
	}
	var qs []ranker.Query
	for range n {
		var q ranker.Query
		for k := range 20 {
			x := make([]float64, ranker.NumFeatures)
			for j, f := range ranker.Features {
				if strings.HasPrefix(f, "doc_") == doc {
					x[j] = r.Float64()
				}
			}
			rel := k < 2
			if !doc {
				x[indexOf(t, "cover")] = 0 // the documents' signal is not the turns' noise
			}
			x[indexOf(t, prefix+signal)] = r.Float64() * 0.9
			if rel {
				x[indexOf(t, prefix+signal)] = 1 + r.Float64()
			}
			q.X, q.Rel = append(q.X, x), append(q.Rel, rel)
		}
		qs = append(qs, q)
	}
	return qs
}

// TestFitKinds (300 queries of each kind: every feature besides the signal is noise, and
// with 150 two more features of noise once ordered a held-out query wrong): the documents'
// block learns from documents only (the same weights with the
// turns' queries or without them), the turns' block from every query (it learns cover from the documents too), both
// kinds of held-out query are ordered right, and a fit without documents leaves their block
// at the prior, so documents keep the prior's order.
func TestFitKinds(t *testing.T) {
	t.Parallel()
	o := ranker.FitOptions{Kinds: true, Trees: ranker.TreeOptions{Trees: 5}, Prior: map[string]float64{"lane_bm25": 0.7, "doc_lane_bm25": 0.7}}
	train := append(kindQueries(t, 1, 300, false), kindQueries(t, 2, 300, true)...)
	w, trees, err := ranker.FitBagged(train, o, 1)
	if err != nil {
		t.Fatal(err)
	}
	docsOnly, _, err := ranker.FitBagged(kindQueries(t, 2, 300, true), o, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ranker.Features {
		if strings.HasPrefix(f, "doc_") && w[f] != docsOnly[f] {
			t.Errorf("%s: %v fitted with the turns, %v on the documents alone: the turns taught the documents", f, w[f], docsOnly[f])
		}
	}
	if w["doc_cover"] <= 0 || w["nb_best"] <= 0 || w["cover"] <= 0 {
		t.Fatalf("doc_cover %v, nb_best %v, cover %v: want all > 0 (the turns' cover taught by the documents)", w["doc_cover"], w["nb_best"], w["cover"])
	}
	m, err := ranker.New("kinds", "", w)
	if err != nil {
		t.Fatal(err)
	}
	if m, err = m.WithTrees(trees); err != nil {
		t.Fatal(err)
	}
	for _, doc := range []bool{false, true} {
		for qi, q := range kindQueries(t, 3, 20, doc) {
			if o := m.Order(q.X); !q.Rel[o[0]] || !q.Rel[o[1]] {
				t.Fatalf("held-out query %d (documents %v): the first two are %v", qi, doc, o[:2])
			}
		}
	}
	// Without documents: their block is the prior's, nothing more.
	w, _, err = ranker.FitBagged(kindQueries(t, 1, 150, false), o, 1)
	if err != nil {
		t.Fatal(err)
	}
	for f, v := range w {
		if strings.HasPrefix(f, "doc_") && (f != "doc_lane_bm25" || v != 0.7) {
			t.Errorf("fitted on turns alone, %s = %v", f, v)
		}
	}
	if _, _, err := ranker.FitBagged(train, o, 3); err == nil {
		t.Error("a bagged fit of kinds apart: no error")
	}
}

// TestTreesScoreTheirKind: a tree that splits on the turns' block scores turns only, one on
// the documents' block documents only, a leaf alone every candidate; Contributions agree.
func TestTreesScoreTheirKind(t *testing.T) {
	t.Parallel()
	split := func(f string, low, high float64) ranker.Tree {
		return ranker.Tree{Nodes: []ranker.Node{{Feature: f, Threshold: 0.5, Left: 1, Right: 2, Value: (low + high) / 2}, {Value: low}, {Value: high}}}
	}
	m, err := ranker.New("k", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err = m.WithTrees([]ranker.Tree{split("best", 1, 2), split("doc_best", 10, 20), {Nodes: []ranker.Node{{Value: 100}}}})
	if err != nil {
		t.Fatal(err)
	}
	turn, doc := make([]float64, ranker.NumFeatures), make([]float64, ranker.NumFeatures)
	turn[indexOf(t, "best")], doc[indexOf(t, "doc_best")] = 1, 1
	if got := m.Score(turn); got != 102 {
		t.Errorf("a turn scores %v, want 2 (its tree) + 100 (the leaf)", got)
	}
	if got := m.Score(doc); got != 120 {
		t.Errorf("a document scores %v, want 20 (its tree) + 100 (the leaf)", got)
	}
	if c := m.Contributions(doc); c[indexOf(t, "best")] != 0 || c[indexOf(t, "doc_best")] != 5 {
		t.Errorf("a document's contributions: best %v, doc_best %v; want 0 and 5 (20 - the root's 15)", c[indexOf(t, "best")], c[indexOf(t, "doc_best")])
	}
}

package ranker_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

// TestSelfTalk checks self_talk and self_talk_you against shares counted by hand: a user who
// speaks of themself, an assistant who speaks of the user, a memory without a speaker.
func TestSelfTalk(t *testing.T) {
	t.Parallel()
	src := &statement.Source{ID: 1, ExternalID: "chat"}
	head := []statement.Candidate{
		// user: 10 fields, 3 of them I, my, I've (the curly one is "I" and "ve": 1 more).
		{ID: 1, Text: "I just got my camera and I've used it twice", Speaker: "user", Source: src, Position: 1},
		{ID: 2, Text: "Your camera takes good photos; I would clean your lens gently.", Speaker: "assistant", Source: src, Position: 2},
		{ID: 3, Text: "Thanks! I’m taking it to Tokyo.", Speaker: "user", Source: src, Position: 3},
		{ID: 4, Text: "My notes say nothing of cameras."}, // no speaker
	}
	for i := range head {
		head[i].Lanes[statement.BM25] = hit(i+1, 1)
	}
	// user: I, my, I've, and "I" of "I’m": 4 of 10 + 6 fields = 0.25; assistant: I of 11.
	user, assistant := 4.0/16, 1.0/11
	for _, c := range []struct {
		question string
		you      bool
	}{
		{"What camera do I have?", false},
		{"Which lens cleaner did you recommend?", true},
		{"Can you remind me what you said about lenses?", true},
		{"Do you remember what camera I got?", false}, // "remembered" asks for what was said to one
		{"Can you suggest accessories for my camera?", false},
	} {
		xs := ranker.Extract(c.question, head, 60)
		want := []float64{1, assistant / user, 1, 0}
		for i, x := range xs {
			if got := feature(t, x, "self_talk"); math.Abs(got-want[i]) > 1e-12 {
				t.Errorf("%q: candidate %d: self_talk %v, want %v", c.question, head[i].ID, got, want[i])
			}
			wantYou := 0.0
			if c.you {
				wantYou = want[i]
			}
			if got := feature(t, x, "self_talk_you"); math.Abs(got-wantYou) > 1e-12 {
				t.Errorf("%q: candidate %d: self_talk_you %v, want %v", c.question, head[i].ID, got, wantYou)
			}
		}
		if got := feature(t, xs[3], "doc_self_talk"); got != 0 {
			t.Errorf("%q: the note's doc_self_talk %v, want 0 (no speaker)", c.question, got)
		}
	}
}

// TestFitWeight: the same weight on every query fits as no weight (weights are shares), and
// where two queries disagree the heavier one wins, in the linear fit and in the trees.
func TestFitWeight(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 9))
	row := func() []float64 {
		x := make([]float64, ranker.NumFeatures)
		for j := range ranker.Features {
			x[j] = r.Float64()
		}
		return x
	}
	var qs, thrice []ranker.Query
	for range 6 {
		q := ranker.Query{}
		for k := range 8 {
			q.X, q.Rel = append(q.X, row()), append(q.Rel, k == 0)
		}
		qs = append(qs, q)
		q.Weight = 3
		thrice = append(thrice, q)
	}
	a, b := ranker.Fit(qs, ranker.FitOptions{}), ranker.Fit(thrice, ranker.FitOptions{})
	for _, f := range ranker.Features {
		if math.Abs(a[f]-b[f]) > 1e-9*max(1, math.Abs(a[f])) {
			t.Errorf("%s: %v unweighted, %v with every weight 3", f, a[f], b[f])
		}
	}
	// Two queries over the same rows: one says the first row is relevant, the other the
	// second (a third row irrelevant to both). The heavier one's row must come first.
	x0, x1, x2 := row(), row(), row()
	for _, w := range [][2]float64{{3, 1}, {1, 3}} {
		qa := ranker.Query{X: [][]float64{x0, x1, x2}, Rel: []bool{true, false, false}, Weight: w[0]}
		qb := ranker.Query{X: [][]float64{x0, x1, x2}, Rel: []bool{false, true, false}, Weight: w[1]}
		lin, err := ranker.New("w", "", ranker.Fit([]ranker.Query{qa, qb}, ranker.FitOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		if first := lin.Score(x0) > lin.Score(x1); first != (w[0] > w[1]) {
			t.Errorf("linear, weights %v: the first row scores %v, the second %v", w, lin.Score(x0), lin.Score(x1))
		}
		m, err := ranker.New("w", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err = m.WithTrees(ranker.FitTrees([]ranker.Query{qa, qb}, m, ranker.TreeOptions{Trees: 5, MinHess: 1e-6}))
		if err != nil {
			t.Fatal(err)
		}
		if first := m.Score(x0) > m.Score(x1); first != (w[0] > w[1]) {
			t.Errorf("trees, weights %v: the first row scores %v, the second %v", w, m.Score(x0), m.Score(x1))
		}
	}
}

package ranker_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

func feature(t *testing.T, x []float64, name string) float64 {
	t.Helper()
	for i, f := range ranker.Features {
		if f == name {
			return x[i]
		}
	}
	t.Fatalf("no feature %s", name)
	return 0
}

func hit(rank int, score float64) statement.LaneHit {
	return statement.LaneHit{Rank: rank, Score: score}
}

// TestExtract checks every feature of a small head against values worked out by hand: the
// turns' in the first block, the note's (no place) in the documents' block.
func TestExtract(t *testing.T) {
	t.Parallel()
	src := &statement.Source{ID: 7, ExternalID: "s", Title: "Harbor crane notes"}
	var a, b, c, note statement.Candidate
	// a: a question by Ana, at place 1; found by bm25 #1 (score 4) and context #2 (score 3).
	a = statement.Candidate{ID: 1, Text: "Ana: Did the crane at the harbor break?", Speaker: "Ana Lima", Source: src, Position: 1}
	a.Lanes[statement.BM25], a.Lanes[statement.Context] = hit(1, 4), hit(2, 3)
	// b: Bo's answer, place 2: context #1 (score 6) and vector #3 (similarity 0.5).
	b = statement.Candidate{ID: 2, Text: "Bo: Yes, the crane broke last week.", Speaker: "Bo", Source: src, Position: 2}
	b.Lanes[statement.Context], b.Lanes[statement.Vector] = hit(1, 6), hit(3, 0.5)
	// c: place 4 (no neighbour among the candidates), no speaker: mention #5.
	c = statement.Candidate{ID: 3, Text: "The harbor opens at nine.", Source: src, Position: 4}
	c.Lanes[statement.Mention] = hit(5, 1)
	// note: no source, no place, no speaker: bm25 #2 (score 2).
	note = statement.Candidate{ID: 4, Text: "Cranes need oiling every spring; the harbor crane too."}
	note.Lanes[statement.BM25] = hit(2, 2)
	// d: Ana again, at place 3 (two after her question a), none of the question's words:
	// graph #9 and context #7 (score 1).
	d := statement.Candidate{ID: 5, Text: "It happened on Monday.", Speaker: "Ana Lima", Source: src, Position: 3}
	d.Lanes[statement.Graph], d.Lanes[statement.Context] = hit(9, 0.1), hit(7, 1)
	// Times: a at t0, b an hour on, d two, c four; the note has none.
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	at := func(h int) *time.Time { t := t0.Add(time.Duration(h) * time.Hour); return &t }
	a.OccurredStart, b.OccurredStart, c.OccurredStart, d.OccurredStart = at(0), at(1), at(4), at(2)
	head := []statement.Candidate{a, b, c, note, d}
	xs := ranker.Extract("When did the harbor crane break, Ana?", head, 2)
	if len(xs) != 5 || len(xs[0]) != ranker.NumFeatures {
		t.Fatalf("%d rows of %d features", len(xs), len(xs[0]))
	}
	// The question's terms: harbor, crane, break, ana ("when", "did", "the" are stop words).
	want := []map[string]float64{
		{"lane_bm25": 1.0 / 3, "lane_context": 1.0 / 4, "best": 1.0 / 3, "lanes": 2, "bm25_rel": 1, "context_rel": 0.5,
			"speaker_named": 1, "cover": 1, "question": 1, "log_len": math.Log(9), "nb_best": 1.0 / 3, "same_best": 1.0 / 9, "title_cover": 0.5,
			"echoed_next": 0.25,                      // of a's four question words, Bo says "crane" again just after
			"longer_next": math.Log(9) - math.Log(8), // a's 8 fields against Bo's 7
			"opener":      1,                         // place 1 of its source
			"src_best":    1.0 / 3},                  // b, its source's strongest other (context #1)
		{"lane_context": 1.0 / 3, "lane_vector": 1.0 / 5, "best": 1.0 / 3, "lanes": 2, "context_rel": 1, "vector_sim": 0.5,
			"other_named": 1, "cover": 0.25, "log_len": math.Log(8), "nb_best": 1.0 / 3, "nb_question": 1, "title_cover": 0.5,
			"echo_prev": 1, "newer": 0.25, // its one question word, "crane", Ana said just before
			"longer_prev": math.Log(8) - math.Log(9), "longer_next": math.Log(8) - math.Log(5), // d, Ana's, has 4 fields
			"src_best": 1.0 / 3}, // a (bm25 #1)
		{"lane_mention": 1.0 / 7, "best": 1.0 / 7, "lanes": 1, "cover": 0.25, "log_len": math.Log(6), "nb_best": 1.0 / 9, "title_cover": 0.5,
			"newer": 1, "longer_prev": math.Log(6) - math.Log(5), "src_best": 1.0 / 3, // c has no speaker: d, Ana's, is someone else's
			"quantity": 1}, // "nine"; the question asks no count, so no quantity_count
		{"lane_bm25": 1.0 / 4, "best": 1.0 / 4, "lanes": 1, "bm25_rel": 0.5, "cover": 0.5, "log_len": math.Log(10), "pairs": 1.0 / 3},
		// d: its neighbours are b (context #1) and c; the same speaker's place two before is a
		// (bm25 #1, context #2), as d is a's two after; b's place two after is c, who has no
		// speaker: none for b.
		{"lane_graph": 1.0 / 11, "lane_context": 1.0 / 9, "best": 1.0 / 9, "lanes": 2, "context_rel": 1.0 / 6, "speaker_named": 1,
			"log_len": math.Log(5), "nb_best": 1.0 / 3, "same_best": 1.0 / 3, "title_cover": 0.5, "newer": 0.5,
			"longer_prev": math.Log(5) - math.Log(8), "longer_next": math.Log(5) - math.Log(6), "src_best": 1.0 / 3},
	}
	// cover_idf: K = 5 candidates; harbor in a, c, note (3), crane in a, b, note (3; "cranes"
	// stems to "crane"), break in a (1: "broke" is another word), ana in a (1).
	w3, w1 := math.Log(1+5.0/4), math.Log(1+5.0/2)
	sum := 2*w3 + 2*w1
	want[0]["cover_idf"] = 1
	want[1]["cover_idf"] = w3 / sum
	want[2]["cover_idf"] = w3 / sum
	want[3]["cover_idf"] = 2 * w3 / sum
	// The note has no place in a source: its values are in the documents' block, the turns'
	// block at zero.
	doc := map[string]float64{}
	for f, v := range want[3] {
		doc["doc_"+f] = v
	}
	want[3] = doc
	for i, row := range xs {
		for j, f := range ranker.Features {
			if got, w := row[j], want[i][f]; math.Abs(got-w) > 1e-12 {
				t.Errorf("candidate %d: %s = %v, want %v", head[i].ID, f, got, w)
			}
		}
	}
}

// TestScoreAndOrder: Score is the sum of weight times value (computed here by name),
// Contributions add up to it, and Order sorts by it, highest first, ties in input order.
func TestScoreAndOrder(t *testing.T) {
	t.Parallel()
	weights := map[string]float64{"lane_bm25": 2, "speaker_named": 0.5, "log_len": -0.25, "nb_best": 3}
	m, err := ranker.New("t", "", weights)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([][]float64, 50)
	for i := range xs {
		xs[i] = make([]float64, ranker.NumFeatures)
		for j := range xs[i] {
			xs[i][j] = math.Round(r.Float64()*4) / 4 // coarse values, so some scores tie
		}
	}
	ref := func(x []float64) float64 {
		var s float64
		for name, w := range weights {
			s += w * feature(t, x, name)
		}
		return s
	}
	for _, x := range xs {
		var parts float64
		for _, p := range m.Contributions(x) {
			parts += p
		}
		if got := m.Score(x); math.Abs(got-ref(x)) > 1e-12 || math.Abs(parts-got) > 1e-12 {
			t.Fatalf("score %v, contributions sum %v, reference %v", got, parts, ref(x))
		}
	}
	order := m.Order(xs)
	for k := 1; k < len(order); k++ {
		a, b := ref(xs[order[k-1]]), ref(xs[order[k]])
		if a < b || (a == b && order[k-1] > order[k]) {
			t.Fatalf("places %d and %d: %d (%v) before %d (%v)", k, k+1, order[k-1], a, order[k], b)
		}
	}
	if off := ranker.Off().Order(xs); off[0] != 0 || off[49] != 49 {
		t.Fatalf("Off reordered: %v", off)
	}
}

// TestFit: on queries whose relevant candidates are the ones with a high nb_best (and noise
// elsewhere), the fit weighs nb_best most and orders held-out queries perfectly; fitting
// twice gives the same weights.
func TestFit(t *testing.T) {
	t.Parallel()
	gen := func(seed uint64, n int) []ranker.Query {
		r := rand.New(rand.NewPCG(seed, 3))
		var qs []ranker.Query
		for range n {
			var q ranker.Query
			for k := range 20 {
				x := make([]float64, ranker.NumFeatures)
				for j, f := range ranker.Features {
					if !strings.HasPrefix(f, "doc_") { // turns: the documents' block is zero
						x[j] = r.Float64()
					}
				}
				rel := k < 2
				x[indexOf(t, "nb_question")] = 0.1 * r.Float64() // noise
				if rel {
					x[indexOf(t, "nb_best")] = 1 + r.Float64()
				} else {
					x[indexOf(t, "nb_best")] = r.Float64() * 0.9
				}
				q.X, q.Rel = append(q.X, x), append(q.Rel, rel)
			}
			qs = append(qs, q)
		}
		return qs
	}
	w := ranker.Fit(gen(1, 200), ranker.FitOptions{})
	again := ranker.Fit(gen(1, 200), ranker.FitOptions{})
	top := ""
	for f, v := range w {
		if again[f] != v {
			t.Fatalf("%s: %v then %v", f, v, again[f])
		}
		if top == "" || math.Abs(v) > math.Abs(w[top]) {
			top = f
		}
	}
	if top != "nb_best" || w["nb_best"] <= 0 {
		t.Fatalf("the largest weight is %s (%v), want nb_best > 0: %v", top, w[top], w)
	}
	m, err := ranker.New("fit", "", w)
	if err != nil {
		t.Fatal(err)
	}
	for qi, q := range gen(2, 20) {
		o := m.Order(q.X)
		if !q.Rel[o[0]] || !q.Rel[o[1]] {
			t.Fatalf("held-out query %d: the first two are %v", qi, o[:2])
		}
	}
}

func indexOf(t *testing.T, name string) int {
	for i, f := range ranker.Features {
		if f == name {
			return i
		}
	}
	t.Fatalf("no feature %s", name)
	return -1
}

// TestModelFile: the embedded model parses; a file round-trips; a file with an unknown
// feature, another format version or a non-finite weight is refused with ErrModel.
func TestModelFile(t *testing.T) {
	t.Parallel()
	d := ranker.DefaultModel()
	if d.Name == "" || len(d.Names()) < 5 {
		t.Fatalf("default model %q weighs %v", d.Name, d.Names())
	}
	b, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ranker.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, ranker.NumFeatures)
	for i := range x {
		x[i] = float64(i%5) / 4
	}
	if back.Score(x) != d.Score(x) {
		t.Fatalf("round trip: %v, want %v", back.Score(x), d.Score(x))
	}
	for _, bad := range []string{
		`{"version": 1, "name": "x", "weights": {"lane_bm25": 1, "lane_bogus": 2}}`,
		`{"version": 3, "name": "x", "weights": {}}`,
		`{"version": 1, "name": "x", "weights": {}, "trees": [{"nodes": [{"value": 1}]}]}`,
		`{"version": 2, "name": "x", "weights": {}, "trees": [{"nodes": [{"feature": "bogus", "left": 1, "right": 2, "value": 0}, {"value": 1}, {"value": 2}]}]}`,
		`{"version": 2, "name": "x", "weights": {}, "trees": [{"nodes": [{"feature": "best", "left": 0, "right": 2, "value": 0}, {"value": 1}, {"value": 2}]}]}`,
		`{"version": 2, "name": "x", "weights": {}, "trees": [{"nodes": [{"feature": "best", "left": 1, "right": 3, "value": 0}, {"value": 1}, {"value": 2}]}]}`,
		`{"version": 2, "name": "x", "weights": {}, "trees": [{"nodes": []}]}`,
		`{"version": 1, "name": "x", "weights": {}, "extra": true}`,
	} {
		if _, err := ranker.Parse([]byte(bad)); !errors.Is(err, ranker.ErrModel) {
			t.Errorf("%s: %v, want ErrModel", bad, err)
		}
	}
	if _, err := ranker.New("x", "", map[string]float64{"best": math.NaN()}); !errors.Is(err, ranker.ErrModel) || !strings.Contains(err.Error(), "best") {
		t.Errorf("NaN weight: %v", err)
	}
	var m ranker.Model
	if err := json.Unmarshal([]byte(`{"version": 1, "name": "y", "weights": {"best": 2}}`), &m); err != nil || m.Score(x) != 2*x[indexOf(t, "best")] {
		t.Fatalf("JSON model: %v, score %v", err, m.Score(x))
	}
}

// TestFitPrior: with a prior, a fit with no pair to learn from returns the prior; a heavy
// penalty keeps the fit near it even where the data pull away; a light one lets the data
// move it (the fit from zero finds nb_best, as in TestFit).
func TestFitPrior(t *testing.T) {
	t.Parallel()
	prior := map[string]float64{"lane_bm25": 0.7, "lane_vector": 1}
	if got := ranker.Fit([]ranker.Query{{X: [][]float64{make([]float64, ranker.NumFeatures)}, Rel: []bool{true}}}, ranker.FitOptions{Prior: prior}); len(got) != 2 || got["lane_bm25"] != 0.7 || got["lane_vector"] != 1 {
		t.Fatalf("no pairs: %v, want the prior", got)
	}
	r := rand.New(rand.NewPCG(4, 4))
	nb, bm := indexOf(t, "nb_best"), indexOf(t, "lane_bm25")
	var qs []ranker.Query
	for range 60 {
		var q ranker.Query
		for k := range 20 {
			x := make([]float64, ranker.NumFeatures)
			rel := k < 2
			x[bm] = r.Float64()
			x[nb] = r.Float64() * 0.9
			if rel {
				x[nb] = 1 + r.Float64()
			}
			q.X, q.Rel = append(q.X, x), append(q.Rel, rel)
		}
		qs = append(qs, q)
	}
	heavy := ranker.Fit(qs, ranker.FitOptions{Prior: prior, L2: 100})
	light := ranker.Fit(qs, ranker.FitOptions{Prior: prior, L2: 0.001})
	if math.Abs(heavy["lane_bm25"]-0.7) > 0.05 || math.Abs(heavy["nb_best"]) > 0.3 {
		t.Fatalf("heavy penalty: lane_bm25 %.3f (prior 0.7), nb_best %.3f: want both near the prior", heavy["lane_bm25"], heavy["nb_best"])
	}
	if light["nb_best"] < 1 || light["nb_best"] < 5*math.Abs(heavy["nb_best"]) {
		t.Fatalf("light penalty: nb_best %.3f (heavy %.3f): want the data to move it", light["nb_best"], heavy["nb_best"])
	}
}

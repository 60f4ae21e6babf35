package statement

import (
	"cmp"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The merges of a recall across workers against the statement's rule applied to every
// group's rows at once (the reference: what one server computes over the union), each group
// sending only what its own lane keeps, as the lanes round does.

// TestMidRankedMerge: mention's and title's mid ranks over the union, from groups that each
// send their best k with the count of their ties before the cut.
func TestMidRankedMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for trial := range 300 {
		k := 1 + r.IntN(8)
		var all []laneRow
		var sent []laneRow
		id := int64(0)
		for range 1 + r.IntN(4) {
			var rows []laneRow
			for range r.IntN(12) {
				id++
				rows = append(rows, laneRow{ID: id, Score: ptrTo(float64(1 + r.IntN(4)))})
			}
			all = append(all, rows...)
			slices.SortFunc(rows, byScore)
			// Each text gives its tie count on the first of its rows of a score, 0 on the others.
			for i, x := range rows[:min(k, len(rows))] {
				ties := int64(0)
				for _, y := range rows {
					if *y.Score == *x.Score {
						ties++
					}
				}
				if i > 0 && *rows[i-1].Score == *x.Score {
					ties = 0
				}
				x.Ties = ptrTo(ties)
				rows[i] = x
			}
			sent = append(sent, rows[:min(k, len(rows))]...)
		}
		// The reference: rank() + (ties - 1) / 2 over all rows, then the cut.
		slices.SortFunc(all, byScore)
		var want []spreadHit
		for _, x := range all[:min(k, len(all))] {
			better, ties := int64(0), int64(0)
			for _, y := range all {
				if *y.Score > *x.Score {
					better++
				} else if *y.Score == *x.Score {
					ties++
				}
			}
			want = append(want, spreadHit{id: x.ID, rank: better + 1 + (ties-1)/2, score: *x.Score})
		}
		r.Shuffle(len(sent), func(i, j int) { sent[i], sent[j] = sent[j], sent[i] })
		if got := midRanked(sent, k); !slices.Equal(got, want) {
			t.Fatalf("trial %d, k %d:\n got  %v\n want %v", trial, k, got, want)
		}
	}
}

// contextMemo is a memory of TestMergeContext: its context score (nil: none) and, for a
// question, the memory after it that its score is handed on to (0: none).
type contextMemo struct {
	id    int64
	score *float64
	next  int64
}

// TestMergeContext: the context lane over the union, from groups that each send their best
// context_k and the handoffs of their questions among them (with the answer's own score).
func TestMergeContext(t *testing.T) {
	const handoff = 0.8
	r := rand.New(rand.NewPCG(6, 9))
	for trial := range 300 {
		k := 1 + r.IntN(6)
		var groups [][]contextMemo
		id := int64(0)
		for range 1 + r.IntN(3) {
			var g []contextMemo
			for range r.IntN(10) {
				id++
				m := contextMemo{id: id}
				if r.IntN(5) > 0 {
					m.score = ptrTo(float64(r.IntN(6)) / 2)
				}
				g = append(g, m)
			}
			for i := range g {
				if i+1 < len(g) && g[i].score != nil && r.IntN(3) == 0 {
					g[i].next = g[i+1].id
				}
			}
			groups = append(groups, g)
		}
		var top, handoffs []laneRow
		for _, g := range groups {
			mine := bestContext(g, k)
			top = append(top, mine...)
			for _, x := range mine {
				for i, m := range g {
					if m.id == x.ID && m.next != 0 {
						handoffs = append(handoffs, laneRow{ID: m.next, Ref: ptrTo(m.id), Score: ptrTo(handoff * *m.score), Score2: g[i+1].score})
					}
				}
			}
		}
		// The reference: the best k over every memory, their handoffs, each memory's better of
		// the two, the best k.
		var every []contextMemo
		for _, g := range groups {
			every = append(every, g...)
		}
		sum := map[int64]float64{}
		for _, m := range every {
			if m.score != nil {
				sum[m.id] = *m.score
			}
		}
		for _, x := range bestContext(every, k) {
			for _, m := range every {
				if m.id == x.ID && m.next != 0 {
					sum[m.next] = max(sum[m.next], handoff**m.score)
				}
			}
		}
		var all []laneRow
		for id, v := range sum {
			all = append(all, laneRow{ID: id, Score: ptrTo(v)})
		}
		slices.SortFunc(all, byScore)
		var want []spreadHit
		for i, x := range all[:min(k, len(all))] {
			want = append(want, spreadHit{id: x.ID, rank: int64(i + 1), score: *x.Score})
		}
		r.Shuffle(len(top), func(i, j int) { top[i], top[j] = top[j], top[i] })
		if got := mergeContext(top, handoffs, k); !slices.Equal(got, want) {
			t.Fatalf("trial %d, k %d:\n got  %v\n want %v", trial, k, got, want)
		}
	}
}

// bestContext is context_top over ms: the k best context scores.
func bestContext(ms []contextMemo, k int) []laneRow {
	var out []laneRow
	for _, m := range ms {
		if m.score != nil {
			out = append(out, laneRow{ID: m.id, Score: m.score})
		}
	}
	slices.SortFunc(out, byScore)
	return out[:min(k, len(out))]
}

// TestMergeTemporal: the temporal lane over the union, from groups that each send the
// candidates after the window's middle and only their latest temporal_k before it.
func TestMergeTemporal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 10))
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for trial := range 300 {
		s := DefaultSettings()
		s.TemporalK = 1 + r.IntN(5)
		var all, sent []laneRow
		id := int64(0)
		for range 1 + r.IntN(3) {
			var head, tail []laneRow
			for range r.IntN(10) {
				id++
				x := laneRow{ID: id, Score: ptrTo(float64(r.IntN(4)) * 3600), Score2: ptrTo(float64(r.IntN(6)) * 3600),
					Flag: ptrTo(r.IntN(2) == 0), At: ptrTo(base.Add(time.Duration(r.IntN(6)) * time.Hour))}
				if *x.Flag {
					tail = append(tail, x)
				} else {
					head = append(head, x)
				}
			}
			all = append(append(all, head...), tail...)
			slices.SortFunc(tail, func(a, b laneRow) int { return cmp.Or(b.At.Compare(*a.At), cmp.Compare(b.ID, a.ID)) })
			sent = append(append(sent, head...), tail[:min(len(tail), s.TemporalK)]...)
		}
		// The reference: the latest temporal_k before the middle over all, then the nearest.
		var head, tail []laneRow
		for _, x := range all {
			if *x.Flag {
				tail = append(tail, x)
			} else {
				head = append(head, x)
			}
		}
		slices.SortFunc(tail, func(a, b laneRow) int { return cmp.Or(b.At.Compare(*a.At), cmp.Compare(b.ID, a.ID)) })
		cands := slices.Concat(head, tail[:min(len(tail), s.TemporalK)])
		slices.SortFunc(cands, func(a, b laneRow) int {
			return cmp.Or(cmp.Compare(*a.Score, *b.Score), cmp.Compare(*a.Score2, *b.Score2), cmp.Compare(a.ID, b.ID))
		})
		var want []spreadHit
		for i, x := range cands[:min(len(cands), s.TemporalK)] {
			want = append(want, spreadHit{id: x.ID, rank: int64(i + 1), score: 1 / (1 + *x.Score/s.TemporalScale)})
		}
		r.Shuffle(len(sent), func(i, j int) { sent[i], sent[j] = sent[j], sent[i] })
		if got := mergeTemporal(sent, s); !slices.Equal(got, want) {
			t.Fatalf("trial %d, temporal_k %d:\n got  %v\n want %v", trial, s.TemporalK, got, want)
		}
	}
}

// TestMergeLanesByRule: mergeLanes ranks each lane of the plan by its registry's rule, and
// only the plan's: bm25 the best by score (with the passage), vector the nearest within
// vector_max_distance, mention and title with tied rows at their mid rank, temporal and
// context by their own rules (their merges are tested above), graph not here (its round).
func TestMergeLanesByRule(t *testing.T) {
	s := DefaultSettings()
	s.VectorMaxDistance = 0.5
	tied := func(kind string, ids ...int64) []laneRow {
		var out []laneRow
		for i, id := range ids {
			out = append(out, laneRow{Kind: kind, ID: id, Score: ptrTo(5.0), Ties: ptrTo(int64(map[bool]int{true: len(ids)}[i == 0]))})
		}
		return out
	}
	rows := slices.Concat(tied("title", 1, 2, 3), tied("mention", 4, 5, 6), []laneRow{
		{Kind: "bm25", ID: 10, Score: ptrTo(3.0), Ref: ptrTo(int64(2))}, {Kind: "bm25", ID: 11, Score: ptrTo(1.0)}, {Kind: "bm25", ID: 12, Score: ptrTo(2.0)},
		{Kind: "vector", ID: 20, Score: ptrTo(0.9), Score2: ptrTo(0.1)}, {Kind: "vector", ID: 21, Score: ptrTo(0.1), Score2: ptrTo(0.9)},
		{Kind: "vector", ID: 22, Score: ptrTo(0.8), Score2: ptrTo(0.2)},
		{Kind: "context", ID: 30, Score: ptrTo(4.0)}, {Kind: "context", ID: 31, Score: ptrTo(6.0)},
		{Kind: "temporal", ID: 40, Score: ptrTo(3600.0), Score2: ptrTo(0.0), Flag: ptrTo(false)},
	})
	ranks := func(hits []spreadHit) map[int64]int64 {
		out := map[int64]int64{}
		for _, h := range hits {
			out[h.id] = h.rank
		}
		return out
	}
	all := Plan(0)
	for _, l := range []Lane{Vector, BM25, Mention, Temporal, Title, Context} {
		all |= Only(l)
	}
	m := mergeLanes(slices.Clone(rows), all, s)
	for l, want := range map[Lane]map[int64]int64{
		BM25:    {10: 1, 12: 2, 11: 3},
		Vector:  {20: 1, 22: 2},
		Title:   {1: 2, 2: 2, 3: 2},
		Mention: {4: 2, 5: 2, 6: 2},
		Context: {31: 1, 30: 2},
	} {
		if got := ranks(m.lanes[l]); !maps.Equal(got, want) {
			t.Errorf("%s: ranks %v, want %v", l, got, want)
		}
	}
	if p := m.lanes[BM25][0].passage; p == nil || *p != 2 {
		t.Errorf("bm25's best lost its passage: %v", p)
	}
	if got := ranks(m.lanes[Temporal]); !maps.Equal(got, ranks(mergeTemporal(rows[len(rows)-1:], s))) {
		t.Errorf("temporal: %v", got)
	}
	only := mergeLanes(slices.Clone(rows), Only(BM25), s)
	for l := range Lane(NumLanes) {
		if l != BM25 && len(only.lanes[l]) > 0 {
			t.Errorf("a plan of bm25 alone merged %s: %v", l, only.lanes[l])
		}
	}
	if len(only.vector) != 3 || len(only.bm25) != 3 {
		t.Errorf("the graph's seeds are kept whatever the plan: %d bm25, %d vector rows", len(only.bm25), len(only.vector))
	}
}

package statement

import (
	"cmp"
	"slices"
)

// The graph lane and the fusion of a recall across workers (spread.go).

// graphSeeds are graph_seeds over every worker: the entities the query names and those the
// best graph_seed_hits bm25 and vector hits mention, ascending.
func graphSeeds(g gathered, m merged, s Settings) []int64 {
	set := map[int64]bool{}
	for _, e := range g.entities {
		set[e] = true
	}
	for _, hits := range [][]laneRow{m.bm25[:min(len(m.bm25), s.GraphSeedHits)], m.vector[:min(len(m.vector), s.GraphSeedHits)]} {
		for _, r := range hits {
			for _, e := range r.Ents {
				set[e] = true
			}
		}
	}
	out := make([]int64, 0, len(set))
	for e := range set {
		out = append(out, e)
	}
	slices.Sort(out)
	return out
}

// walkRow is a row of the walk round (sql/citus/spread.sql, "walk").
type walkRow struct {
	Kind  string
	ID    int64
	Dst   *int64
	Depth *int32
	W     *float64
}

// walked is graph_nodes and graph_pairs over every worker, as the rank round binds them.
type walked struct {
	ids    []int64
	seeds  []bool
	depths []int32
	s, d   []int32
	w      []float64
}

// mergeWalk keeps the graph_frontier entities nearest the seeds over every worker's walk (each
// worker walked its sets at least as far: it stops on its own count) in id order, and the
// relations between them as pairs of places (1-based) in that order.
func mergeWalk(rows []walkRow, s Settings) walked {
	var nodes, pairs []walkRow
	for _, r := range rows {
		if r.Kind == "node" {
			nodes = append(nodes, r)
		} else {
			pairs = append(pairs, r)
		}
	}
	slices.SortFunc(nodes, func(a, b walkRow) int { return cmp.Or(cmp.Compare(*a.Depth, *b.Depth), cmp.Compare(a.ID, b.ID)) })
	nodes = nodes[:min(len(nodes), s.GraphFrontier)]
	slices.SortFunc(nodes, func(a, b walkRow) int { return cmp.Compare(a.ID, b.ID) })
	var out walked
	place := make(map[int64]int32, len(nodes))
	for i, n := range nodes {
		place[n.ID] = int32(i + 1)
		out.ids, out.seeds, out.depths = append(out.ids, n.ID), append(out.seeds, *n.Depth == 0), append(out.depths, *n.Depth)
	}
	for _, p := range pairs {
		sp, ok1 := place[p.ID]
		dp, ok2 := place[*p.Dst]
		if ok1 && ok2 {
			out.s, out.d, out.w = append(out.s, sp), append(out.d, dp), append(out.w, *p.W)
		}
	}
	return out
}

// graphLane is graph_lane over every worker: each memory of the pool (the best graph_pool
// bm25 hits and the vector hits within vector_max_distance) scores the mass of the top
// entities it mentions; memories of equal score share their mid rank.
func graphLane(m merged, top map[int64]float64, s Settings) []spreadHit {
	pool := map[int64][]int64{}
	for _, r := range m.bm25[:min(len(m.bm25), s.GraphPool)] {
		pool[r.ID] = r.Ents
	}
	for _, r := range m.vector {
		if *r.Score2 <= s.VectorMaxDistance {
			pool[r.ID] = r.Ents
		}
	}
	var rows []laneRow
	for id, ents := range pool {
		var score float64
		found := false
		for _, e := range ents {
			if mass, ok := top[e]; ok {
				score, found = score+mass, true
			}
		}
		if found {
			rows = append(rows, laneRow{ID: id, Score: &score, Ties: ptrTo(int64(1))}) // each row counts itself
		}
	}
	return midRanked(rows, s.GraphK)
}

// fusedHit is one memory of the fusion: its lanes, RRF sum and fused score.
type fusedHit struct {
	id        int64
	lanes     [NumLanes]LaneHit
	in        [NumLanes]bool
	direct    bool
	passage   *int32 // the passage that scored (fused_rrf's passage)
	rrf, fuse float64
	access    laneRow // its access row (At: last accessed)
}

// fuseSpread is fused_rrf and output_top over the merged lanes: the RRF sum in lane order,
// then the recency and frequency terms each worker computed (output_access), added in the
// statement's order; the k best, best first.
func fuseSpread(m merged, plan Plan, s Settings) []fusedHit {
	byID := map[int64]*fusedHit{}
	var order []int64
	for _, l := range plan.Lanes() {
		for _, h := range m.lanes[l] {
			f := byID[h.id]
			if f == nil {
				f = &fusedHit{id: h.id}
				byID[h.id] = f
				order = append(order, h.id)
			}
			f.lanes[l], f.in[l] = LaneHit{Rank: int(h.rank), Score: h.score}, true
			f.direct = f.direct || h.direct
			if h.passage != nil {
				f.passage = h.passage
			}
		}
	}
	out := make([]fusedHit, 0, len(order))
	for _, id := range order {
		f := byID[id]
		for _, l := range plan.Lanes() {
			if f.in[l] {
				f.rrf += s.RRF(l, f.lanes[l].Rank)
			}
		}
		f.fuse = f.rrf
		if a, ok := m.access[id]; ok {
			f.fuse, f.access = f.rrf+*a.Recency+*a.Frequency, a
		}
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b fusedHit) int { return cmp.Or(cmp.Compare(b.fuse, a.fuse), cmp.Compare(a.id, b.id)) })
	return out[:min(len(out), s.K)]
}

func ptrTo[T any](v T) *T { return &v }

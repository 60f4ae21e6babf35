package statement_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

type edge struct {
	a, b   int
	w      float64
	scopes string
}

// pprReference is personalized PageRank by power iteration on the visible graph, as the
// graph lane documents it: nodes within hops of the seeds, undirected edges summed by weight,
// dangling mass returned through the personalization vector. With limit > 0 the walk
// keeps only the limit visible entities of least (depth, index) (indexes are in id order).
func pprReference(n int, visibleNode func(int) bool, edges []edge, visibleEdge func(edge) bool, seeds []int, hops, limit, iters int, d float64) map[int]float64 {
	adj := map[int]map[int]float64{}
	add := func(a, b int, w float64) {
		if adj[a] == nil {
			adj[a] = map[int]float64{}
		}
		adj[a][b] += w
	}
	for _, e := range edges {
		if visibleEdge(e) {
			add(e.a, e.b, e.w)
			add(e.b, e.a, e.w)
		}
	}
	// The walk follows visible relations, then keeps the visible entities it reached.
	depth := map[int]int{}
	frontier := []int{}
	for _, s := range seeds {
		depth[s] = 0
		frontier = append(frontier, s)
	}
	for h := 1; h <= hops; h++ {
		var next []int
		for _, u := range frontier {
			for v := range adj[u] {
				if _, ok := depth[v]; !ok {
					depth[v] = h
					next = append(next, v)
				}
			}
		}
		frontier = next
	}
	var reached []int
	for v := range depth {
		if visibleNode(v) {
			reached = append(reached, v)
		}
	}
	sort.Slice(reached, func(i, j int) bool {
		a, b := reached[i], reached[j]
		if depth[a] != depth[b] {
			return depth[a] < depth[b]
		}
		return a < b
	})
	if limit > 0 && len(reached) > limit {
		reached = reached[:limit]
	}
	in := map[int]bool{}
	for _, v := range reached {
		in[v] = true
	}
	p := map[int]float64{}
	nseeds := 0
	for _, s := range seeds {
		if in[s] {
			nseeds++
		}
	}
	for _, s := range seeds {
		if in[s] {
			p[s] = 1 / float64(nseeds)
		}
	}
	out := map[int]map[int]float64{}
	for u := range in {
		var total float64
		for v, w := range adj[u] {
			if in[v] {
				total += w
			}
		}
		for v, w := range adj[u] {
			if in[v] {
				if out[u] == nil {
					out[u] = map[int]float64{}
				}
				out[u][v] = w / total
			}
		}
	}
	r := map[int]float64{}
	for v := range in {
		r[v] = p[v]
	}
	for range iters {
		next := map[int]float64{}
		var dangling float64
		for u := range in {
			if len(out[u]) == 0 {
				dangling += r[u]
			}
			for v, w := range out[u] {
				next[v] += r[u] * w
			}
		}
		for v := range in {
			next[v] = (1-d)*p[v] + d*(next[v]+dangling*p[v])
		}
		r = next
	}
	return r
}

// TestGraphMatchesPowerIteration: the graph lane's memory scores equal the summed PageRank
// mass, computed in Go by power iteration on the caller's visible subgraph, of the
// GraphEntities entities of most mass that each memory of the pool (the GraphPool best bm25
// hits) mentions; the seeds are the named entities and those of the GraphSeedHits best hits.
func TestGraphMatchesPowerIteration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	const n = 16
	// Entity i is in scope beta when i%5 == 4 (invisible to acme), with the beta edges between
	// them (a relation's ends are in its own scope set: migration 00006).
	// Entities 14 and 15 have no relations: seeded, 15 is a dangling node.
	entScope := func(i int) string {
		if i%5 == 4 {
			return "{beta}"
		}
		return "{acme}"
	}
	edges := []edge{
		{0, 1, 1, "{acme}"}, {1, 2, 2, "{acme}"}, {2, 3, 0.5, "{acme}"}, {0, 3, 1.5, "{acme}"},
		{3, 5, 1, "{acme}"}, {5, 6, 3, "{acme}"}, {6, 7, 1, "{acme}"}, {7, 8, 1, "{acme}"},
		{4, 9, 1, "{beta}"}, {9, 4, 2, "{beta}"}, {2, 11, 1, "{acme}"}, {11, 12, 2, "{acme}"},
		{1, 10, 1, "{acme}"}, {12, 13, 1, "{acme}"}, {0, 10, 0.7, "{acme}"}, {1, 2, 0.5, "{acme}"},
	}
	tx := testdb.BeginAs(t, db.Runtime, []string{"acme", "beta"}, []string{"acme", "beta"})
	ids := make([]int64, n)
	for i := range n {
		if err := tx.QueryRow(ctx, `INSERT INTO recall.entities (external_id, scopes, name) VALUES ($1, $2, $3) RETURNING id`,
			fmt.Sprintf("e%d", i), entScope(i), fmt.Sprintf("Node%c", 'A'+i)).Scan(&ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range edges {
		if _, err := tx.Exec(ctx, `INSERT INTO recall.relations (scopes, src_id, dst_id, weight, predicate) VALUES ($1, $2, $3, $4, $5)`,
			e.scopes, ids[e.a], ids[e.b], e.w, fmt.Sprintf("p%d_%d_%v", e.a, e.b, e.w)); err != nil {
			t.Fatal(err)
		}
	}
	// Memory j mentions entities j%n and (3j+1)%n.
	mems := make([]int64, 20)
	mentions := map[int64][]int{}
	for j := range mems {
		if err := tx.QueryRow(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ($1, '{acme}', 'plain words') RETURNING id`,
			fmt.Sprintf("m%d", j)).Scan(&mems[j]); err != nil {
			t.Fatal(err)
		}
		for _, e := range []int{j % n, (3*j + 1) % n} {
			if entScope(e) != "{acme}" {
				continue
			}
			if _, err := tx.Exec(ctx, `INSERT INTO recall.mentions (memory_id, entity_id, scopes) VALUES ($1, $2, '{acme}') ON CONFLICT DO NOTHING`, mems[j], ids[e]); err != nil {
				t.Fatal(err)
			}
			if len(mentions[mems[j]]) == 0 || mentions[mems[j]][0] != e {
				mentions[mems[j]] = append(mentions[mems[j]], e)
			}
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	def := statement.DefaultSettings()
	s := def
	s.K, s.GraphK = 100, 100
	s.Weights[statement.Graph] = 0.05 // off by default (weight 0); this test reads the lane's own order
	// Every memory's text is "plain words": the query's "plain" makes each a bm25 hit of the
	// same score, so the best hits are the lowest ids.
	graphTies := 0
	for _, tc := range []struct {
		raw      string
		seeds    []int // the named entities
		hops     int
		frontier int // 0: the default, more than the fixture's entities
		iters    int
		d        float64
		entities int // 0: the default, more than the fixture's entities
		hits     int // GraphSeedHits
		pool     int // GraphPool; 0: the default, more than the fixture's memories
	}{
		{"tell me about nodea plain", []int{0}, 2, 0, 20, 0.85, 0, 0, 0},
		{"nodea and nodeg plain", []int{0, 6}, 3, 0, 50, 0.7, 0, 0, 0},
		{"what links nodec plain", []int{2}, 1, 0, 5, 0.9, 0, 0, 0},
		{"nodea and nodep plain", []int{0, 15}, 2, 0, 20, 0.85, 0, 0, 0},
		// The frontier cuts the walk: the nearest visible entities, by (depth, id).
		{"nodea and nodeg plain", []int{0, 6}, 3, 7, 50, 0.7, 0, 0, 0},
		// The levels up to depth 1 hold 7 visible entities: with a frontier of 7 the walk
		// stops there, with 8 it must read depth 2 for the eighth.
		{"nodea and nodeg plain", []int{0, 6}, 3, 8, 50, 0.7, 0, 0, 0},
		// Only the entities of most mass score.
		{"tell me about nodea plain", []int{0}, 2, 0, 20, 0.85, 4, 0, 0},
		// The best two hits' entities join the seeds (m0 mentions e0 and e1, m1 e1).
		{"what links nodec plain", []int{2}, 2, 0, 20, 0.85, 0, 2, 0},
		// Only the pool is scored: the 12 best hits.
		{"nodea and nodeg plain", []int{0, 6}, 3, 0, 50, 0.7, 0, 0, 12},
	} {
		s.GraphHops, s.GraphIterations, s.GraphDamping = tc.hops, tc.iters, tc.d
		s.GraphFrontier, s.GraphEntities, s.GraphSeedHits, s.GraphPool = def.GraphFrontier, def.GraphEntities, tc.hits, def.GraphPool
		if tc.frontier > 0 {
			s.GraphFrontier = tc.frontier
		}
		if tc.entities > 0 {
			s.GraphEntities = tc.entities
		}
		if tc.pool > 0 {
			s.GraphPool = tc.pool
		}
		got := run(t, db, []string{"acme"}, statement.Only(statement.Graph),
			statement.Query{Text: tc.raw, Raw: tc.raw, Vector: unitVector(1, 3)}, s)
		seeds := slices.Clone(tc.seeds)
		for j := range tc.hits {
			for _, e := range mentions[mems[j]] {
				if !slices.Contains(seeds, e) {
					seeds = append(seeds, e)
				}
			}
		}
		acmeOnly := func(e edge) bool { return e.scopes != "{beta}" }
		mass := pprReference(n, func(i int) bool { return entScope(i) == "{acme}" }, edges, acmeOnly, seeds, tc.hops, tc.frontier, tc.iters, tc.d)
		// The GraphEntities entities of most mass (ties by id, which is index order).
		var top []int
		for e, v := range mass {
			if v > 0 {
				top = append(top, e)
			}
		}
		sort.Slice(top, func(i, j int) bool {
			if mass[top[i]] != mass[top[j]] {
				return mass[top[i]] > mass[top[j]]
			}
			return top[i] < top[j]
		})
		if len(top) > s.GraphEntities {
			if math.Abs(mass[top[s.GraphEntities-1]]-mass[top[s.GraphEntities]]) < 1e-6 {
				t.Fatalf("%q: entities %d and %d tie at the cut; the fixture cannot tell them apart", tc.raw, top[s.GraphEntities-1], top[s.GraphEntities])
			}
			top = top[:s.GraphEntities]
		}
		// Each memory of the pool (the GraphPool lowest ids) scores the mass of those it mentions.
		want := map[int64]float64{}
		for _, m := range mems[:min(len(mems), s.GraphPool)] {
			for _, e := range mentions[m] {
				if slices.Contains(top, e) {
					want[m] += mass[e]
				}
			}
		}
		if len(want) < 5 {
			t.Fatalf("%q: the reference reaches only %d memories; the fixture is too small to test", tc.raw, len(want))
		}
		if len(got) != len(want) {
			t.Fatalf("%q: graph lane returned %d memories, reference %d", tc.raw, len(got), len(want))
		}
		var total float64
		for _, v := range mass {
			total += v
		}
		if math.Abs(total-1) > 1e-9 {
			t.Fatalf("reference mass sums to %g", total)
		}
		order := make([]int64, 0, len(want))
		for m := range want {
			order = append(order, m)
		}
		sort.Slice(order, func(i, j int) bool {
			if want[order[i]] != want[order[j]] {
				return want[order[i]] > want[order[j]]
			}
			return order[i] < order[j]
		})
		ranks, tied := midRanks(want, 1e-9)
		graphTies += tied
		for i, c := range got {
			h := c.Lanes[statement.Graph]
			if h.Rank != ranks[c.ID] {
				t.Fatalf("%q: memory %d graph rank %d, want %d (scores tied share their mid rank)", tc.raw, c.ID, h.Rank, ranks[c.ID])
			}
			if math.Abs(h.Score-want[c.ID]) > 1e-6 {
				t.Fatalf("%q: memory %d graph score %.9f, power iteration %.9f", tc.raw, c.ID, h.Score, want[c.ID])
			}
			if math.Abs(want[order[i]]-want[c.ID]) > 1e-9 {
				t.Fatalf("%q: row %d is memory %d, the reference puts %d there", tc.raw, i, c.ID, order[i])
			}
		}
	}
	if graphTies == 0 {
		t.Fatal("no two memories tie in the graph lane: the mid-rank rule is untested")
	}
}

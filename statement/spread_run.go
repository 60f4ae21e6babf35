package statement

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/scope"
)

// spreadWorker is one worker of a recall across workers: its sets and their placements, in
// groups of at most Settings.SetsPerText (each round runs once per group, one text naming the
// group's sets), and the read-only transaction every round runs in as the caller.
type spreadWorker struct {
	sets   [][]string
	places []Placement
	groups []spreadGroup
	tx     pgx.Tx
}

// spreadGroup is a group of a worker's sets, read by one text.
type spreadGroup struct {
	sets   [][]string
	places []Placement
}

// text is the round's routed text written for g's sets.
func (g spreadGroup) text(routed *reads) (string, error) {
	return shardSets(routed, g.sets, g.places)
}

// spread is one recall across workers.
type spread struct {
	form    *spreadForm
	workers []*spreadWorker
	args    pgx.NamedArgs
}

// each runs fn for every worker at once and returns the first error.
func (sp *spread) each(fn func(w *spreadWorker) error) error {
	errs := make([]error, len(sp.workers))
	var wg sync.WaitGroup
	for i, w := range sp.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(w)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// with is the recall's binds and extra.
func (sp *spread) with(extra pgx.NamedArgs) pgx.NamedArgs {
	out := make(pgx.NamedArgs, len(sp.args)+len(extra))
	for k, v := range sp.args {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// query runs one round on every worker (the groups of a worker one after the other) and
// collects its rows, each scanned by scan.
func query[T any](ctx context.Context, sp *spread, routed *reads, args pgx.NamedArgs, scan pgx.RowToFunc[T]) ([]T, error) {
	parts := make([][]T, len(sp.workers))
	err := sp.each(func(w *spreadWorker) error {
		i := slices.Index(sp.workers, w)
		for _, g := range w.groups {
			text, err := g.text(routed)
			if err != nil {
				return err
			}
			rows, err := w.tx.Query(ctx, text, args)
			if err != nil {
				return interpretError(ctx, err)
			}
			got, err := pgx.CollectRows(rows, scan)
			if err != nil {
				return interpretError(ctx, err)
			}
			parts[i] = append(parts[i], got...)
		}
		return nil
	})
	return slices.Concat(parts...), err
}

// RunSpread runs st for q for a caller of several scope sets (sets, placed at places), in
// rounds on their workers (spread.go), each worker's sets Settings.SetsPerText a text, and
// PageRank on coordinator; it returns what one server's statement returns for the caller, and
// the lanes round's texts.
func RunSpread(ctx context.Context, coordinator Beginner, workers Workers, who Scopes, st *Statement, sets [][]string, places []Placement, q Query, s Settings) ([]Candidate, string, error) {
	if q.Now.IsZero() {
		q.Now = time.Now() // one now for every round
	}
	form, err := spreadFormOf(st.Shape)
	if err != nil {
		return nil, "", err
	}
	args, err := st.Args(q, s)
	if err != nil {
		return nil, "", err
	}
	sp := &spread{form: form, args: args}
	byAddr := map[string]*spreadWorker{}
	for i, p := range places {
		addr := fmt.Sprintf("%s:%d", p.Host, p.Port)
		w := byAddr[addr]
		if w == nil {
			w = &spreadWorker{}
			byAddr[addr] = w
			sp.workers = append(sp.workers, w)
		}
		w.sets, w.places = append(w.sets, sets[i]), append(w.places, p)
	}
	per := min(max(s.SetsPerText, 1), MaxDirectSets)
	for _, w := range sp.workers {
		for i := 0; i < len(w.sets); i += per {
			j := min(i+per, len(w.sets))
			w.groups = append(w.groups, spreadGroup{sets: w.sets[i:j], places: w.places[i:j]})
		}
	}
	defer func() {
		for _, w := range sp.workers {
			if w.tx != nil {
				w.tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read only
			}
		}
	}()
	if err := sp.each(func(w *spreadWorker) error { return w.begin(ctx, workers, who, s) }); err != nil {
		return nil, "", err
	}
	if st.Shape.Plan.Has(Title) {
		if err := sp.titleKeys(ctx, q, s); err != nil {
			return nil, "", err
		}
	}
	out, err := sp.run(ctx, coordinator, st, q, s)
	if err != nil {
		return nil, "", err
	}
	var texts []string
	for _, w := range sp.workers {
		for _, g := range w.groups {
			text, err := g.text(form.lanes)
			if err != nil {
				return nil, "", err
			}
			texts = append(texts, fmt.Sprintf("-- the lanes round on %s:%d\n%s", w.places[0].Host, w.places[0].Port, text))
		}
	}
	return out, strings.Join(texts, "\n"), nil
}

// begin opens the worker's transaction as the caller and checks that its sets' shards are
// still there (ErrShardMoved).
func (w *spreadWorker) begin(ctx context.Context, workers Workers, who Scopes, s Settings) error {
	pool, err := workers(ctx, w.places[0].Host, w.places[0].Port)
	if err != nil {
		return err
	}
	if w.tx, err = pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly}); err != nil {
		return interpretError(ctx, err)
	}
	if err := scope.Apply(ctx, w.tx, who.Read, who.Write, s.Session()...); err != nil {
		return interpretError(ctx, err)
	}
	return shardsHere(ctx, w.tx, w.sets, w.places)
}

// titleKeys sets recall.title_known on every worker to the title keys the query names exactly
// in any set the caller sees (each worker finds its sets', as RunOnShards does).
func (sp *spread) titleKeys(ctx context.Context, q Query, s Settings) error {
	keys := make([][]string, len(sp.workers))
	err := sp.each(func(w *spreadWorker) error {
		for _, g := range w.groups {
			if err := setTitleKnown(ctx, w.tx, g.sets, g.places, q, s); err != nil {
				return err
			}
			var k []string
			if err := w.tx.QueryRow(ctx, spreadPiece("title_keys", nil)).Scan(&k); err != nil {
				return interpretError(ctx, err)
			}
			i := slices.Index(sp.workers, w)
			keys[i] = append(keys[i], k...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	all := slices.Compact(slices.Sorted(slices.Values(slices.Concat(keys...))))
	return sp.each(func(w *spreadWorker) error {
		if _, err := w.tx.Exec(ctx, spreadPiece("title_keys_set", nil), pgx.NamedArgs{"keys": all}); err != nil {
			return interpretError(ctx, err)
		}
		return nil
	})
}

// run runs the rounds (spread.go) on the open transactions and merges them.
func (sp *spread) run(ctx context.Context, coordinator Beginner, st *Statement, q Query, s Settings) ([]Candidate, error) {
	plan := st.Shape.Plan
	grows, err := query(ctx, sp, sp.form.gather, sp.args, pgx.RowToStructByPos[gatherRow])
	if err != nil {
		return nil, err
	}
	g := mergeGather(grows, st.Shape.Fuzzy, s)
	bound := pgx.NamedArgs{
		"b_docs": g.docs, "b_total_len": g.totalLen, "b_cdocs": g.cdocs, "b_ctotal_len": g.ctotalLen, "b_ctotal_nlen": g.ctotalNlen,
		"b_terms": g.terms, "b_df": g.df, "b_cdf": g.cdf, "b_entities": g.entities, "b_entity_sims": g.entitySims,
		"b_titles": g.titles, "b_title_sims": g.titleSims, "b_title_direct": g.titleDirect,
		"spread_bm25": max(s.BM25K, s.GraphPool, s.GraphSeedHits),
	}
	lrows, err := query(ctx, sp, sp.form.lanes, sp.with(bound), pgx.RowToStructByPos[laneRow])
	if err != nil {
		return nil, err
	}
	m := mergeLanes(lrows, plan, s)
	if plan.Has(Graph) {
		if m.lanes[Graph], err = sp.graph(ctx, coordinator, g, m, s); err != nil {
			return nil, err
		}
	}
	return sp.output(ctx, fuseSpread(m, plan, s), bound, q, s)
}

// graph runs the walk round from the merged seeds and PageRank on the coordinator, and
// scores the graph lane.
func (sp *spread) graph(ctx context.Context, coordinator Beginner, g gathered, m merged, s Settings) ([]spreadHit, error) {
	wrows, err := query(ctx, sp, sp.form.walk, sp.with(pgx.NamedArgs{"b_seeds": graphSeeds(g, m, s)}), pgx.RowToStructByPos[walkRow])
	if err != nil {
		return nil, err
	}
	w := mergeWalk(wrows, s)
	top := map[int64]float64{}
	if len(w.ids) > 0 {
		tx, err := coordinator.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
		if err != nil {
			return nil, interpretError(ctx, err)
		}
		defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read only
		rows, err := tx.Query(ctx, sp.form.rank, sp.with(pgx.NamedArgs{
			"b_node_ids": w.ids, "b_node_seeds": w.seeds, "b_node_depths": w.depths,
			"b_pair_s": w.s, "b_pair_d": w.d, "b_pair_w": w.w,
		}))
		if err != nil {
			return nil, interpretError(ctx, err)
		}
		var id int64
		var mass float64
		if _, err := pgx.ForEachRow(rows, []any{&id, &mass}, func() error { top[id] = mass; return nil }); err != nil {
			return nil, interpretError(ctx, err)
		}
	}
	return graphLane(m, top, s), nil
}

// output reads the rows of the fused k and their neighbours on their workers: the first
// context_hits of them that may bring neighbours over every worker bring theirs.
func (sp *spread) output(ctx context.Context, top []fusedHit, bound pgx.NamedArgs, q Query, s Settings) ([]Candidate, error) {
	ids, fused, passages := make([]int64, len(top)), make([]float64, len(top)), make([]*int32, len(top))
	for i, f := range top {
		ids[i], fused[i], passages[i] = f.id, f.fuse, f.passage
	}
	bound = sp.with(bound)
	bound["b_top"], bound["b_top_fused"], bound["b_top_passage"], bound["context_hits"] = ids, fused, passages, len(top)
	eligible, err := query(ctx, sp, sp.form.hits, bound, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	hits := map[int64]bool{}
	for _, f := range top {
		if len(hits) < s.ContextHits && slices.Contains(eligible, f.id) {
			hits[f.id] = true
		}
	}
	rows, err := query(ctx, sp, sp.form.output, bound, func(r pgx.CollectableRow) (Candidate, error) {
		return scanCandidate(r, q.Now, q.asOf())
	})
	if err != nil {
		return nil, err
	}
	place := make(map[int64]int, len(top))
	for i, f := range top {
		place[f.id] = i
	}
	var cands, context []Candidate
	for _, c := range rows {
		if c.ContextOf != 0 {
			if hits[c.ContextOf] {
				context = append(context, c)
			}
			continue
		}
		f := top[place[c.ID]]
		for _, l := range Lanes() {
			if f.in[l] {
				c.Lanes[l] = f.lanes[l]
			}
		}
		c.Direct, c.RRF, c.Score = f.direct, f.rrf, f.fuse
		c.LastAccessed, c.AccessCount = f.access.At, 0
		if f.access.AccessCount != nil {
			c.AccessCount = *f.access.AccessCount
		}
		cands = append(cands, c)
	}
	slices.SortFunc(cands, func(a, b Candidate) int { return place[a.ID] - place[b.ID] })
	slices.SortFunc(context, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.ContextOf, b.ContextOf))
	})
	return attachContext(append(cands, context...)), nil
}

package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// TestCitusManySets: a caller of several scope sets gets the pack a single server gives for
// the same writes, every plan, random questions, items of its sets only: read in rounds on
// their workers, one text a set (statement.RunSpread, the default), or, with sets_per_text
// 16, sets on one worker by one text over their shards (statement.RunOnShards); two sets
// apart, three with two of them together, all eight.
// Which sets share a worker is read from the cluster's placement, so the test holds whatever
// the hash puts where.
func TestCitusManySets(t *testing.T) {
	t.Parallel()
	cdb, sdb := distributedPair(t)
	ctx := context.Background()
	engines, _ := enginePair(t, recall.Config{FunctionalPredicates: []string{"lives_in"}}, cdb, sdb)
	r := rand.New(rand.NewPCG(34, 7))
	sets := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	words, names, start := writeHarbor(t, engines, r, recall.User{ID: "w", Read: sets, Write: sets}, sets)

	// The sets by the worker their shards are on.
	byWorker, _ := scopesByWorker(t, cdb, sets)
	var together [][]string
	var apart []string
	for _, scs := range byWorker {
		if len(scs) >= 2 {
			together = append(together, scs[:2])
		}
		if len(scs) >= 3 {
			together = append(together, scs[:3])
		}
		apart = append(apart, scs[0])
	}
	if len(together) == 0 || len(apart) < 2 {
		t.Fatalf("eight sets on the workers: %v (want two on one worker, and two workers)", byWorker)
	}
	slices.SortFunc(together, func(a, b []string) int { return strings.Compare(strings.Join(a, ""), strings.Join(b, "")) })
	slices.Sort(apart)
	readers := append(slices.Clone(together), apart[:2], sets)
	for _, tw := range together {
		if !slices.Contains(tw, apart[1]) && !slices.Contains(tw, apart[0]) || len(tw) != 2 {
			continue
		}
		other := apart[0]
		if slices.Contains(tw, other) {
			other = apart[1]
		}
		readers = append(readers, append(slices.Clone(tw), other))
		break
	}

	now := start.Add(30 * 24 * time.Hour)
	plans := []statement.Plan{statement.Maximal}
	for _, l := range statement.Lanes() {
		plans = append(plans, statement.Only(l))
	}
	// Then again with every lane's cut and every merge bound tight, so each round's merge cuts
	// what some worker returned (the walk's frontier, the probes' best, every lane's depth),
	// one set a text.
	orig := engines[0].Settings()
	tight := orig
	tight.BM25K, tight.VectorK, tight.MentionK, tight.TitleK, tight.TemporalK, tight.ContextK, tight.GraphK = 6, 6, 4, 3, 4, 6, 4
	tight.GraphFrontier, tight.GraphEntities, tight.GraphPool, tight.GraphSeedHits = 5, 3, 4, 3
	tight.MentionEntitiesK, tight.TitleSourcesK, tight.K, tight.ContextHits = 2, 1, 12, 2
	tight.SetsPerText = 1
	union := orig
	union.SetsPerText = statement.MaxDirectSets
	passages := 0 // items the cluster packed as a passage (the notes are long)
	for qi := range 12 {
		if qi == 4 { // sets on one worker read by one text over their shards' union
			for _, e := range engines {
				if err := e.SetSettings(union); err != nil {
					t.Fatal(err)
				}
			}
		}
		if qi == 8 {
			for _, e := range engines {
				if err := e.SetSettings(tight); err != nil {
					t.Fatal(err)
				}
			}
		}
		q := names[r.IntN(len(names))] + " " + words[r.IntN(len(words))] + " " + words[r.IntN(len(words))] + "?"
		switch qi % 4 {
		case 1:
			q = fmt.Sprintf("What was said in Harbor chat %d of %s about the %s?", r.IntN(3), sets[r.IntN(len(sets))], words[r.IntN(len(words))])
		case 2:
			q = "What happened on May 2, 2026 with the " + words[r.IntN(len(words))] + "?"
		case 3:
			q = "Who lives in Edo near the " + words[r.IntN(len(words))] + "?"
		}
		for _, read := range readers {
			user := recall.User{ID: "r" + strings.Join(read, ""), Read: read}
			for _, plan := range plans {
				opts := func() *recall.Options {
					return &recall.Options{Now: now, Plan: plan, NoOrder: plan != statement.Maximal}
				}
				got, err := engines[0].Recall(ctx, user, q, 600, opts())
				if err != nil {
					t.Fatalf("%q as %v, plan %v, on the cluster: %v", q, read, plan, err)
				}
				want, err := engines[1].Recall(ctx, user, q, 600, opts())
				if err != nil {
					t.Fatalf("%q as %v, plan %v, on one server: %v", q, read, plan, err)
				}
				if g, w := packLines(got), packLines(want); !slices.Equal(g, w) || plan == statement.Maximal && len(w) == 0 {
					t.Fatalf("%q as %v, plan %v:\n cluster %v\n single  %v", q, read, plan, g, w)
				}
				for _, it := range got.Items {
					if !slices.Contains(read, strings.SplitN(it.ExternalID, "-", 2)[0]) {
						t.Fatalf("%q as %v: the cluster packed %s", q, read, it.ExternalID)
					}
					if it.Passage != nil {
						passages++
					}
				}
			}
		}
	}
	if passages == 0 {
		t.Fatal("no pack held a passage: the forms' passages went untested")
	}
	// With sets_per_text 16 the trace ran the union of the sets' shards on their worker.
	for _, e := range engines {
		if err := e.SetSettings(union); err != nil {
			t.Fatal(err)
		}
	}
	read := together[0]
	tr, err := engines[0].Trace(ctx, recall.User{ID: "t", Read: read}, "Who visited the harbor with Bob Stone?", 600, &recall.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(tr.SQL, "recall.probe_entities_shard("); n != len(read) || !strings.Contains(tr.SQL, " UNION ALL ") {
		t.Fatalf("the trace's SQL probes entities %d times for %d sets:\n%.600s", n, len(read), tr.SQL)
	}
	// With the default (one set a text), the lanes round ran once a set; on both workers for
	// sets apart.
	for _, e := range engines {
		if err := e.SetSettings(orig); err != nil {
			t.Fatal(err)
		}
	}
	tr, err = engines[0].Trace(ctx, recall.User{ID: "t3", Read: read}, "Who visited the harbor with Bob Stone?", 600, &recall.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(tr.SQL, "-- the lanes round on "); n != len(read) {
		t.Fatalf("the trace of a caller of %v on one worker shows %d lanes rounds:\n%.600s", read, n, tr.SQL)
	}
	tr, err = engines[0].Trace(ctx, recall.User{ID: "t2", Read: apart[:2]}, "Who visited the harbor with Bob Stone?", 600, &recall.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(tr.SQL, "-- the lanes round on "); n != 2 {
		t.Fatalf("the trace of a caller of %v shows %d workers' rounds:\n%.600s", apart[:2], n, tr.SQL)
	}
}

// scopesByWorker groups scopes, each the one scope of a set, by the worker its set's shards are
// on (setWorkers), in their order; workers lists the workers in the order first met.
func scopesByWorker(t testing.TB, cdb *testdb.DB, scopes []string) (byWorker map[string][]string, workers []string) {
	t.Helper()
	sets := make([][]string, len(scopes))
	for i, sc := range scopes {
		sets[i] = []string{sc}
	}
	byWorker = map[string][]string{}
	for i, w := range setWorkers(t, cdb, sets) {
		if byWorker[w] == nil {
			workers = append(workers, w)
		}
		byWorker[w] = append(byWorker[w], scopes[i])
	}
	return byWorker, workers
}

// setWorkers returns the worker ("host:port") each scope set's shards are on, read from the
// cluster's placement (statement.PlacementOf).
func setWorkers(t testing.TB, cdb *testdb.DB, sets [][]string) []string {
	t.Helper()
	ctx := context.Background()
	tx, err := cdb.Runtime.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read only
	out := make([]string, len(sets))
	for i, set := range sets {
		p, err := statement.PlacementOf(ctx, tx, set)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = fmt.Sprintf("%s:%d", p.Host, p.Port)
	}
	return out
}

// TestCitusManySetsPastOneText: a caller of more scope sets than one worker's text names
// (sets_per_text at its most, statement.MaxDirectSets) is read in rounds over groups of them,
// on each worker one group after the other, and gets the single server's pack: seventeen sets
// on one worker and one on the other, random questions, the maximal plan and each lane alone.
func TestCitusManySetsPastOneText(t *testing.T) {
	t.Parallel()
	cdb, sdb := distributedPair(t)
	ctx := context.Background()
	engines, _ := enginePair(t, recall.Config{FunctionalPredicates: []string{"lives_in"}}, cdb, sdb)
	r := rand.New(rand.NewPCG(18, 3))
	// MaxDirectSets + 1 sets on one worker (two groups there) and one on the other, by the
	// cluster's own placement of each name.
	var candidates []string
	for i := range 200 {
		candidates = append(candidates, fmt.Sprintf("s%03d", i))
	}
	byWorker, _ := scopesByWorker(t, cdb, candidates)
	var sets []string
	for _, scs := range byWorker {
		if len(sets) == 0 && len(scs) > statement.MaxDirectSets {
			sets = append(sets, scs[:statement.MaxDirectSets+1]...)
		}
	}
	for _, scs := range byWorker {
		if !slices.Contains(sets, scs[0]) {
			sets = append(sets, scs[0])
			break
		}
	}
	if len(sets) != statement.MaxDirectSets+2 {
		t.Fatalf("200 names on the workers: %d sets picked, want %d", len(sets), statement.MaxDirectSets+2)
	}
	words, names, start := writeHarbor(t, engines, r, recall.User{ID: "w", Read: sets, Write: sets}, sets)
	now := start.Add(30 * 24 * time.Hour)
	plans := []statement.Plan{statement.Maximal}
	for _, l := range statement.Lanes() {
		plans = append(plans, statement.Only(l))
	}
	union := engines[0].Settings()
	union.SetsPerText = statement.MaxDirectSets
	if err := engines[0].SetSettings(union); err != nil {
		t.Fatal(err)
	}
	for _, read := range [][]string{sets, sets[:statement.MaxDirectSets+1]} {
		user := recall.User{ID: fmt.Sprintf("r%d", len(read)), Read: read}
		for qi := range 3 {
			q := names[r.IntN(len(names))] + " " + words[r.IntN(len(words))] + " " + words[r.IntN(len(words))] + "?"
			if qi%2 == 1 {
				q = fmt.Sprintf("What was said in Harbor chat %d of %s about the %s?", r.IntN(3), read[r.IntN(len(read))], words[r.IntN(len(words))])
			}
			for _, plan := range plans {
				opts := &recall.Options{Now: now, Plan: plan, NoOrder: plan != statement.Maximal}
				got, err := engines[0].Recall(ctx, user, q, 600, opts)
				if err != nil {
					t.Fatalf("%q as %d sets, plan %v, on the cluster: %v", q, len(read), plan, err)
				}
				want, err := engines[1].Recall(ctx, user, q, 600, opts)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := packLines(got), packLines(want); !slices.Equal(g, w) || plan == statement.Maximal && len(w) == 0 {
					t.Fatalf("%q as %d sets, plan %v:\n cluster %v\n single  %v", q, len(read), plan, g, w)
				}
			}
		}
	}
}

package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	recall "github.com/recall-engine/recall"
	"github.com/recall-engine/recall/statement"
)

// citusForm is one read form of the cluster: the engine that reads by it, the settings it
// reads with, the callers (their sets) that take it, and what the trace's SQL shows when it
// ran.
type citusForm struct {
	name    string
	engine  *recall.Engine
	setsPer int // Settings.SetsPerText
	readers [][]string
	ran     func(sql string, read []string) bool
}

// TestCitusEveryReadForm: one suite of recall assertions run over every read form of the
// cluster, as pgx's tests run one body under every query exec mode: the routed statement
// through the coordinator (Config.RoutedReads), one set's shard form on its worker
// (statement.RunDirect, the default for a caller of one set), the rounds across workers with
// one set a text (statement.RunSpread, the default for several), and the sets on one worker
// read by one text over their shards (sets_per_text 16, statement.RunOnShards). For every
// plan and question, each form gives the pack the single server gives for the same writes,
// holding only the caller's sets, and the trace shows that form ran.
func TestCitusEveryReadForm(t *testing.T) {
	t.Parallel()
	cdb, sdb := distributedPair(t)
	ctx := context.Background()
	cfg := recall.Config{FunctionalPredicates: []string{"lives_in"}}
	engines, _ := enginePair(t, cfg, cdb, sdb)
	cfg.RoutedReads = true
	routedEngines, _ := enginePair(t, cfg, cdb)
	r := rand.New(rand.NewPCG(34, 9))
	sets := []string{"a", "b", "c", "d", "e", "f"}
	words, names, start := writeHarbor(t, engines, r, recall.User{ID: "w", Read: sets, Write: sets}, sets)
	now := start.Add(30 * 24 * time.Hour)

	byWorker, workers := scopesByWorker(t, cdb, sets)
	var together []string // two sets on one worker
	for _, w := range workers {
		if len(byWorker[w]) >= 2 && together == nil {
			together = byWorker[w][:2]
		}
	}
	if together == nil || len(workers) < 2 {
		t.Fatalf("six sets on the workers: %v (want two on one worker, and two workers)", byWorker)
	}
	apart := []string{byWorker[workers[0]][0], byWorker[workers[1]][0]}
	slices.Sort(apart)
	one := [][]string{{apart[0]}, {apart[1]}}
	forms := []citusForm{
		{"routed", routedEngines[0], 1, one, func(sql string, read []string) bool {
			return strings.Contains(sql, "recall.probe_entities_routed(") && !strings.Contains(sql, "recall.probe_entities_shard(")
		}},
		{"shard", engines[0], 1, one, func(sql string, read []string) bool {
			return strings.Count(sql, "recall.probe_entities_shard(") == 1 && !strings.Contains(sql, "-- the lanes round on ")
		}},
		{"spread", engines[0], 1, [][]string{apart, together}, func(sql string, read []string) bool {
			return strings.Count(sql, "-- the lanes round on ") == len(read)
		}},
		{"shards", engines[0], statement.MaxDirectSets, [][]string{together}, func(sql string, read []string) bool {
			return strings.Count(sql, "recall.probe_entities_shard(") == len(read) && strings.Contains(sql, " UNION ALL ")
		}},
	}
	plans := []statement.Plan{statement.Maximal}
	for _, l := range statement.Lanes() {
		plans = append(plans, statement.Only(l))
	}
	questions := []string{
		names[0] + " " + words[0] + " " + words[1] + "?",
		fmt.Sprintf("What was said in Harbor chat 1 of %s about the %s?", apart[0], words[2]),
		"What happened on May 2, 2026 with the " + words[3] + "?",
		"Who lives in Edo near the " + words[4] + "?",
	}
	for _, f := range forms {
		s := f.engine.Settings()
		s.SetsPerText = f.setsPer
		if err := f.engine.SetSettings(s); err != nil {
			t.Fatal(err)
		}
		for _, read := range f.readers {
			user := recall.User{ID: "r" + strings.Join(read, ""), Read: read}
			for _, q := range questions {
				for _, plan := range plans {
					opts := &recall.Options{Now: now, Plan: plan, NoOrder: plan != statement.Maximal}
					got, err := f.engine.Recall(ctx, user, q, 600, opts)
					if err != nil {
						t.Fatalf("%s: %q as %v, plan %v: %v", f.name, q, read, plan, err)
					}
					want, err := engines[1].Recall(ctx, user, q, 600, &recall.Options{Now: now, Plan: plan, NoOrder: plan != statement.Maximal})
					if err != nil {
						t.Fatalf("one server: %q as %v, plan %v: %v", q, read, plan, err)
					}
					if g, w := packLines(got), packLines(want); !slices.Equal(g, w) || plan == statement.Maximal && len(w) == 0 {
						t.Fatalf("%s: %q as %v, plan %v:\n cluster %v\n single  %v", f.name, q, read, plan, g, w)
					}
					for _, it := range got.Items {
						if !slices.Contains(read, strings.SplitN(it.ExternalID, "-", 2)[0]) {
							t.Fatalf("%s: %q as %v: packed %s", f.name, q, read, it.ExternalID)
						}
					}
				}
			}
			tr, err := f.engine.Trace(ctx, user, questions[0], 600, &recall.Options{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if !f.ran(tr.SQL, read) {
				t.Fatalf("%s as %v: the trace's SQL is not that form's:\n%.600s", f.name, read, tr.SQL)
			}
		}
	}
}

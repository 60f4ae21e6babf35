package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/statement"
)

// BenchmarkCitusSets: how many of a caller's scope sets one text should read on a worker
// (statement.Settings.SetsPerText). Twelve sets of 500 memories, eight on one worker and four
// on the other (picked by the cluster's placement), on the cluster and on a single server;
// callers of 2, 4 and 8 sets on one worker and of 4 + 4 on both recall, each question on
// three arms in turn (rotating which goes first): the cluster with every set of a worker in
// one text (sets_per_text 16), the cluster with one set a text (1), the single server. Per
// caller: each arm's p50 and its ratio to the single server's.
//
//	make citus && go test -run '^$' -bench CitusSets -benchtime 30x .
func BenchmarkCitusSets(b *testing.B) {
	cdb, sdb := distributedPair(b)
	ctx := context.Background()
	var candidates []string
	for i := range 100 {
		candidates = append(candidates, fmt.Sprintf("g%02d", i))
	}
	byWorker, order := scopesByWorker(b, cdb, candidates)
	if len(order) != 2 || len(byWorker[order[0]]) < 8 || len(byWorker[order[1]]) < 4 {
		b.Fatalf("100 names on the workers: %v", byWorker)
	}
	one, other := byWorker[order[0]][:8], byWorker[order[1]][:4]
	engines, _ := benchEngines(b, cdb, sdb, slices.Concat(one, other), 500)
	callers := []struct {
		name string
		read []string
	}{{"2_one_worker", one[:2]}, {"4_one_worker", one[:4]}, {"8_one_worker", one}, {"4+4_two_workers", slices.Concat(one[:4], other)}}
	union, single := engines[0].Settings(), engines[0].Settings()
	union.SetsPerText = 16
	single.SetsPerText = 1
	r := rand.New(rand.NewPCG(3, 34))
	var lat [4][3][]time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := "What did " + benchNames[r.IntN(len(benchNames))] + " say about the " + benchWords[r.IntN(len(benchWords))] + " " +
			benchWords[r.IntN(len(benchWords))] + "?"
		for c, caller := range callers {
			user := recall.User{ID: caller.name, Read: caller.read}
			for k := range 3 {
				arm := (i + k) % 3
				e := engines[min(arm, 1)] // arms 0 and 1 on the cluster, 2 on the single server
				if arm < 2 {
					if err := e.SetSettings([]statement.Settings{union, single}[arm]); err != nil {
						b.Fatal(err)
					}
				}
				t := time.Now()
				if _, err := e.Recall(ctx, user, q, 1000, nil); err != nil {
					b.Fatal(err)
				}
				lat[c][arm] = append(lat[c][arm], time.Since(t))
			}
		}
	}
	b.StopTimer()
	p50 := func(d []time.Duration) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[len(s)/2].Microseconds()) / 1000
	}
	for c, caller := range callers {
		u, o, s := p50(lat[c][0]), p50(lat[c][1]), p50(lat[c][2])
		b.ReportMetric(u, caller.name+"_union_p50_ms")
		b.ReportMetric(o, caller.name+"_perset_p50_ms")
		b.ReportMetric(s, caller.name+"_single_p50_ms")
		b.ReportMetric(u/s, caller.name+"_x_single_union")
		b.ReportMetric(o/s, caller.name+"_x_single_perset")
	}
}

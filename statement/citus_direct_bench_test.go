package statement_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall/internal/testkit/synth"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// BenchmarkCitusDirect measures the read the engine takes for a caller of one scope set on a
// distributed schema (statement.RunDirect: the statement prepared on the worker that holds
// the set's shards, against those shard tables, so the worker keeps its plan as one server
// does, while Citus plans a routed statement anew at every call: docs/SCALING.md). Three arms
// alternate query by query on a kept cluster database of BenchmarkCitusMaximal: the single
// server, the routed statement through the coordinator (Config.RoutedReads), and the direct
// read with its placement lookup, its check that the shard is still on the worker and its
// probes planned per call. Each reports p50 and p95 and its p50 over the single server's
// (x_single); same_top10 is the share of questions whose first ten ids the direct read and
// the routed statement gave alike. A direct read that fell back to the routed statement
// fails the benchmark: it would measure the wrong path.
//
//	RECALL_BENCH_CITUS_DB=recall_citus_... make bench-citus-direct N=1000000 TIMES=40
func BenchmarkCitusDirect(b *testing.B) {
	kept := os.Getenv("RECALL_BENCH_CITUS_DB")
	if kept == "" {
		b.Skip("RECALL_BENCH_CITUS_DB is not set: this benchmark runs on a kept cluster database (BenchmarkCitusMaximal)")
	}
	cdb := testdb.CitusOpen(b, kept)
	c, sdb := benchCorpus(b)
	checkKept(b, cdb, c)
	s := benchSettings(b)
	st, err := statement.Build(statement.Shape{Dim: c.Cfg.Dim, Fuzzy: true, Plan: statement.Maximal})
	if err != nil {
		b.Fatal(err)
	}
	workers := workerPools(b, cdb)
	ctx := context.Background()
	for _, sc := range []string{synth.BigScope, synth.SmallScope} {
		who := statement.Scopes{Read: []string{sc}}
		b.Run(fmt.Sprintf("n=%d/scope=%s", c.Cfg.N, sc), func(b *testing.B) {
			var lat [3][]time.Duration
			i, same := 0, 0
			for b.Loop() {
				i++
				q := benchQuery(c, sc, i)
				var routed, direct []int64
				for k := range 3 {
					switch arm := (i + k) % 3; arm { // which arm goes first rotates
					case 0:
						_, t := timedRun(b, sdb, who, st, q, s)
						lat[0] = append(lat[0], t)
					case 1:
						out, t := timedRun(b, cdb, who, st, q, s)
						lat[1] = append(lat[1], t)
						routed = firstIDs(out)
					case 2:
						t0 := time.Now()
						out, text, err := statement.RunDirect(ctx, cdb.Runtime, workers, who, st, q, s)
						lat[2] = append(lat[2], time.Since(t0))
						if err != nil {
							b.Fatal(err)
						}
						if !strings.Contains(text, "recall.probe_titles_shard(") {
							b.Fatal("the direct read fell back to the routed statement")
						}
						direct = firstIDs(out)
					}
				}
				if slices.Equal(routed, direct) {
					same++
				}
			}
			s50 := percentiles(b, lat[0], "single_")
			b.ReportMetric(percentiles(b, lat[1], "routed_")/s50, "routed_x_single")
			b.ReportMetric(percentiles(b, lat[2], "direct_")/s50, "direct_x_single")
			b.ReportMetric(float64(same)/float64(i), "same_top10")
		})
	}
}

// firstIDs are the ids of out's first ten candidates.
func firstIDs(out []statement.Candidate) []int64 {
	var ids []int64
	for _, r := range out[:min(10, len(out))] {
		ids = append(ids, r.ID)
	}
	return ids
}

// workerPools gives statement.RunDirect a pool of the runtime role on each worker, as the
// engine's does (the coordinator pool's role and credentials at the worker's address), closed
// when b ends.
func workerPools(b *testing.B, cdb *testdb.DB) statement.Workers {
	var mu sync.Mutex
	pools := map[string]*pgxpool.Pool{}
	b.Cleanup(func() {
		for _, p := range pools {
			p.Close()
		}
	})
	return func(ctx context.Context, host string, port int) (statement.Beginner, error) {
		mu.Lock()
		defer mu.Unlock()
		key := fmt.Sprintf("%s:%d", host, port)
		if p, ok := pools[key]; ok {
			return p, nil
		}
		cfg := cdb.Runtime.Config()
		cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Fallbacks = host, uint16(port), nil
		p, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, err
		}
		pools[key] = p
		return p, nil
	}
}

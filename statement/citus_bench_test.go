package statement_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/testkit/synth"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/migrations"
	"github.com/recall-engine/recall/statement"
)

// BenchmarkCitusMaximal: the synthetic corpus of RECALL_BENCH_N memories (BenchmarkMaximal's)
// loaded into a fresh database of the Citus cluster and distributed there
// (migrations.Distribute), against the same corpus on the single server; the maximal
// statement for the caller of the big scope (99%) and of the small one (1%), each a caller of
// one scope set, so routed to one shard. The two servers run alternately, query by query,
// and each arm reports its p50 and p95 and the cluster's p50 over the single server's
// (x_single). The cluster's corpus is loaded anew each run (the load's time is printed).
//
//	make bench-citus N=10000 TIMES=60
func BenchmarkCitusMaximal(b *testing.B) {
	cdb := testdb.Citus(b) // first: without a cluster it skips before loading anything
	c, sdb := benchCorpus(b)
	ctx := context.Background()
	start := time.Now()
	if err := c.Load(ctx, cdb.Owner, func(stage string, done, total int) {
		if done == total {
			fmt.Fprintf(os.Stderr, "citus: %s %d/%d (%v)\n", stage, done, total, time.Since(start).Round(time.Second))
		}
	}); err != nil {
		b.Fatal(err)
	}
	owner := cdb.OwnerSQL()
	defer owner.Close() //nolint:errcheck // closing a handle
	t := time.Now()
	// Distributing builds each shard's HNSW index on its worker, with the worker's
	// maintenance_work_mem: give it the room the single server's build had (synth.Load), or
	// pgvector falls back to its far slower on-disk build at 1M.
	workerBuildMemory(b, fmt.Sprintf("%dMB", synth.HNSWBuildMB(c.Cfg.N, c.Cfg.Dim)))
	err := migrations.Distribute(ctx, owner)
	workerBuildMemory(b, "")
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "citus: loaded in %v, distributed in %v\n", t.Sub(start).Round(time.Second), time.Since(t).Round(time.Second))
	if _, err := cdb.Owner.Exec(ctx, "VACUUM (ANALYZE)"); err != nil {
		b.Fatal(err)
	}
	s := benchSettings(b)
	st, err := statement.Build(statement.Shape{Dim: c.Cfg.Dim, Fuzzy: true, Plan: statement.Maximal})
	if err != nil {
		b.Fatal(err)
	}
	for _, scope := range []string{synth.BigScope, synth.SmallScope} {
		who := statement.Scopes{Read: []string{scope}}
		if os.Getenv("RECALL_EXPLAIN_CITUS") != "" {
			// Where the cluster's time goes: EXPLAIN ANALYZE of the routed statement, whose
			// output holds the worker's plan with its planning time.
			text, err := st.Routed([]string{scope})
			if err != nil {
				b.Fatal(err)
			}
			for range 2 {
				timedRun(b, cdb, who, st, benchQuery(c, scope, 1), s)
			}
			routed := &statement.Statement{Shape: st.Shape, SQL: text, Binds: st.Binds}
			for _, l := range explain(b, cdb.Runtime, []string{scope}, routed, benchQuery(c, scope, 1), s, "ANALYZE, SUMMARY") {
				if os.Getenv("RECALL_EXPLAIN_CITUS") == "all" || strings.Contains(l, "Time") || strings.Contains(l, "Task") {
					fmt.Println(scope, l)
				}
			}
		}
		b.Run(fmt.Sprintf("n=%d/scope=%s", c.Cfg.N, scope), func(b *testing.B) {
			var lat [2][]time.Duration
			i := 0
			for b.Loop() {
				i++
				q := benchQuery(c, scope, i)
				for k := range 2 {
					arm := (i + k) % 2 // which server goes first alternates
					out, d := timedRun(b, []*testdb.DB{cdb, sdb}[arm], who, st, q, s)
					if len(out) == 0 {
						b.Fatalf("no rows from arm %d", arm)
					}
					lat[arm] = append(lat[arm], d)
				}
			}
			c50 := percentiles(b, lat[0], "citus_")
			s50 := percentiles(b, lat[1], "single_")
			b.ReportMetric(c50/s50, "x_single")
		})
	}
}

// workerBuildMemory sets maintenance_work_mem on every worker of the cluster
// (TEST_CITUS_WORKERS) to mem, or back to its configured value when mem is "".
func workerBuildMemory(b *testing.B, mem string) {
	b.Helper()
	ctx := context.Background()
	for _, u := range strings.Fields(os.Getenv(testdb.EnvCitusWorkers)) {
		c, err := pgx.Connect(ctx, u)
		if err != nil {
			b.Fatal(err)
		}
		set := "ALTER SYSTEM RESET maintenance_work_mem"
		if mem != "" {
			set = fmt.Sprintf("ALTER SYSTEM SET maintenance_work_mem = '%s'", mem) // mem: "4096MB", made above
		}
		_, err = c.Exec(ctx, set)
		if err == nil {
			_, err = c.Exec(ctx, "SELECT pg_reload_conf()")
		}
		c.Close(ctx) //nolint:errcheck // closing a connection
		if err != nil {
			b.Fatalf("worker %s: %v", u, err)
		}
	}
}

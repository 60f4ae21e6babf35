package statement_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/testkit/synth"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/migrations"
	sqltext "github.com/recall-engine/recall/sql"
	"github.com/recall-engine/recall/statement"
)

// BenchmarkCitusMaximal: the synthetic corpus of RECALL_BENCH_N memories (BenchmarkMaximal's)
// loaded into a fresh database of the Citus cluster and distributed there
// (migrations.Distribute), against the same corpus on the single server; the maximal
// statement for the caller of the big scope (99%) and of the small one (1%), each a caller of
// one scope set, so routed to one shard. The two servers run alternately, query by query,
// and each arm reports its p50 and p95 and the cluster's p50 over the single server's
// (x_single), and the share of questions whose first ten rows the two gave alike
// (same_top10). The cluster's corpus is loaded anew each run (the load's time is printed):
// into the coordinator, then distributed; with RECALL_BENCH_CITUS_LOAD=distributed the schema
// is distributed first and the corpus copied through the coordinator into the shards, then
// BM25 built by recall.bm25_flush: one copy of the data on disk instead of two at once, and
// no HNSW build on the coordinator (at 1M, 25 GB a copy). With TEST_CITUS_KEEP set the
// cluster's database is kept (its name is printed), and RECALL_BENCH_CITUS_DB=<name> runs on
// it again instead of loading: a 1M load takes about an hour.
//
//	make bench-citus N=10000 TIMES=60
//	RECALL_BENCH_CITUS_LOAD=distributed TEST_CITUS_KEEP=1 make bench-citus N=1000000 TIMES=40
//	RECALL_BENCH_CITUS_DB=recall_citus_... make bench-citus N=1000000 TIMES=40
func BenchmarkCitusMaximal(b *testing.B) {
	var cdb *testdb.DB
	kept := os.Getenv("RECALL_BENCH_CITUS_DB")
	if kept != "" {
		cdb = testdb.CitusOpen(b, kept)
	} else {
		cdb = testdb.Citus(b) // first: without a cluster it skips before loading anything
	}
	c, sdb := benchCorpus(b)
	if kept == "" {
		loadCluster(b, c, cdb)
	} else {
		checkKept(b, cdb, c)
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
			i, same := 0, 0
			for b.Loop() {
				i++
				q := benchQuery(c, scope, i)
				var top [2][]string
				for k := range 2 {
					arm := (i + k) % 2 // which server goes first alternates
					out, d := timedRun(b, []*testdb.DB{cdb, sdb}[arm], who, st, q, s)
					if len(out) == 0 {
						b.Fatalf("no rows from arm %d", arm)
					}
					lat[arm] = append(lat[arm], d)
					for _, r := range out[:min(10, len(out))] {
						top[arm] = append(top[arm], r.ExternalID)
					}
				}
				if slices.Equal(top[0], top[1]) {
					same++
				}
			}
			c50 := percentiles(b, lat[0], "citus_")
			s50 := percentiles(b, lat[1], "single_")
			b.ReportMetric(c50/s50, "x_single")
			// The share of questions whose first ten rows (external ids, in order) the two
			// servers gave alike: the cluster's corpus is the same data, loaded apart.
			b.ReportMetric(float64(same)/float64(i), "same_top10")
		})
	}
}

// checkKept fails b unless cdb, a kept cluster database (RECALL_BENCH_CITUS_DB), holds corpus
// c's number of memories.
func checkKept(b *testing.B, cdb *testdb.DB, c *synth.Corpus) {
	var n int
	if err := cdb.Owner.QueryRow(context.Background(), "SELECT count(*) FROM recall.memories").Scan(&n); err != nil || n != c.Cfg.N {
		b.Fatalf("RECALL_BENCH_CITUS_DB=%s holds %d memories (%v), not the corpus's %d", cdb.Name, n, err, c.Cfg.N)
	}
}

// loadCluster loads corpus c into cdb, a fresh database of the cluster, and distributes it
// (the order RECALL_BENCH_CITUS_LOAD says), then vacuums it.
func loadCluster(b *testing.B, c *synth.Corpus, cdb *testdb.DB) {
	ctx := context.Background()
	owner := cdb.OwnerSQL()
	defer owner.Close() //nolint:errcheck // closing a handle
	start := time.Now()
	load := func() {
		if err := c.Load(ctx, cdb.Owner, func(stage string, done, total int) {
			if done == total {
				fmt.Fprintf(os.Stderr, "citus: %s %d/%d (%v)\n", stage, done, total, time.Since(start).Round(time.Second))
			}
		}); err != nil {
			b.Fatal(err)
		}
	}
	first := os.Getenv("RECALL_BENCH_CITUS_LOAD") == "distributed"
	if !first {
		load()
	}
	// Distributing builds each shard's HNSW index on its worker, with the worker's
	// maintenance_work_mem: give it the room the single server's build had (synth.Load), or
	// pgvector falls back to its far slower on-disk build at 1M.
	workerBuildMemory(b, fmt.Sprintf("%dMB", synth.HNSWBuildMB(c.Cfg.N, c.Cfg.Dim)))
	err := migrations.Distribute(ctx, owner)
	if err == nil && first {
		load()
		// The load's rows were marked for BM25 upkeep by the row trigger; build it now.
		_, err = cdb.Owner.Exec(ctx, sqltext.BM25Flush)
	}
	workerBuildMemory(b, "")
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "citus: %s loaded and distributed in %v (distributed first: %v)\n", cdb.Name, time.Since(start).Round(time.Second), first)
	if _, err := cdb.Owner.Exec(ctx, "VACUUM (ANALYZE)"); err != nil {
		b.Fatal(err)
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

package statement_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/internal/testkit/synth"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// BenchmarkCitusDirect measures a way the cluster could answer a caller of one scope set
// that the engine does not take today: the statement prepared on the worker that holds the
// set's shards, against those shard tables themselves, so the worker keeps its plan as one
// server does (Citus plans a routed statement anew at every call: docs/SCALING.md). Three
// arms alternate query by query on the kept 1M database of BenchmarkCitusMaximal: the single
// server, the cluster as the engine uses it (routed by Citus), and the direct read. Each
// reports p50 and p95 and its p50 over the single server's (x_single); same_top10 is the
// share of questions whose first ten ids the direct read and the routed statement gave
// alike.
//
// The direct arm reads the visible sets on the coordinator (as the routed arm does), then, on
// the worker, as the runtime role under the same scopes and settings, runs the routed text
// with every distributed table named by its shard and the two routed probes replaced by
// copies of themselves that read the shards too (made here on the worker, in a schema
// recall_bench_<set> dropped at the end, owned by recall_owner as the real ones are). The set's
// placement is looked up once: an engine would keep it and look again when a shard moves.
// The probe copies keep their plans; with RECALL_BENCH_DIRECT_PLAN=custom they plan at every
// call, as probes that take the shard tables as arguments (EXECUTE) would.
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
	for _, sc := range []string{synth.BigScope, synth.SmallScope} {
		who := statement.Scopes{Read: []string{sc}}
		d := newDirect(b, cdb, st, sc)
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
						for _, r := range out[:min(10, len(out))] {
							routed = append(routed, r.ID)
						}
					case 2:
						t0 := time.Now()
						direct = d.run(b, cdb, who, q, s)
						lat[2] = append(lat[2], time.Since(t0))
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

// direct is the direct arm for one scope set: the worker's pool as the runtime role and the
// text that names the set's shards.
type direct struct {
	st   *statement.Statement
	text string
	pool *pgxpool.Pool
}

// newDirect finds the set's shards and their worker, makes the shard probes there and opens a
// pool on it; all is undone when b ends.
func newDirect(b *testing.B, cdb *testdb.DB, st *statement.Statement, set string) *direct {
	ctx := context.Background()
	rows, err := cdb.Owner.Query(ctx, `
		SELECT n.nodename, n.nodeport, split_part(t.logicalrelid::regclass::text, '.', 2), shard_name(t.logicalrelid, t.shardid)
		FROM (SELECT logicalrelid, get_shard_id_for_distribution_column(logicalrelid, $1::text[]) AS shardid
		      FROM pg_dist_partition WHERE logicalrelid::regclass::text LIKE 'recall.%' AND partmethod = 'h') t
		JOIN pg_dist_placement p ON p.shardid = t.shardid
		JOIN pg_dist_node n ON n.groupid = p.groupid`, []string{set})
	if err != nil {
		b.Fatal(err)
	}
	shards := map[string]string{}
	var host string
	var port int
	for rows.Next() {
		var h, table, shard string
		var p int
		if err := rows.Scan(&h, &p, &table, &shard); err != nil {
			b.Fatal(err)
		}
		if host != "" && (h != host || p != port) {
			b.Fatalf("scope set %s is placed on %s:%d and %s:%d: its shards are not co-located", set, host, port, h, p)
		}
		host, port, shards[table] = h, p, shard
	}
	if rows.Err() != nil || len(shards) == 0 {
		b.Fatalf("no shards for scope set %s (%v)", set, rows.Err())
	}
	var admin *pgx.ConnConfig
	for _, u := range strings.Fields(os.Getenv(testdb.EnvCitusWorkers)) {
		w, err := pgx.ParseConfig(u)
		if err != nil {
			b.Fatal(err)
		}
		if w.Port == uint16(port) {
			admin = w
		}
	}
	if admin == nil {
		b.Fatalf("the worker %s:%d is not among %s", host, port, testdb.EnvCitusWorkers)
	}
	admin.Database = cdb.Name
	conn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx) //nolint:errcheck // a scratch connection
	tableRE := regexp.MustCompile(`recall\.([a-z_0-9]+)\b`)
	onShards := func(sql string) string {
		return tableRE.ReplaceAllStringFunc(sql, func(m string) string {
			if sh, ok := shards[m[len("recall."):]]; ok {
				return sh
			}
			return m
		})
	}
	schema := "recall_bench_" + regexp.MustCompile(`[^a-z0-9]`).ReplaceAllString(strings.ToLower(set), "_")
	ddl := []string{"SET citus.enable_ddl_propagation = off", "DROP SCHEMA IF EXISTS " + schema + " CASCADE", "CREATE SCHEMA " + schema,
		"GRANT USAGE ON SCHEMA " + schema + " TO recall_runtime"}
	for _, p := range []string{"probe_titles_routed(text[], text, int, int, float8)", "probe_entities_routed(text[], text[], boolean, float8)"} {
		var def string
		if err := conn.QueryRow(ctx, "SELECT pg_get_functiondef($1::regprocedure)", "recall."+p).Scan(&def); err != nil {
			b.Fatal(err)
		}
		def = strings.Replace(onShards(def), "recall."+strings.Split(p, "(")[0], schema+"."+strings.Split(p, "(")[0], 1)
		if os.Getenv("RECALL_BENCH_DIRECT_PLAN") != "custom" {
			def = strings.Replace(def, "plan_cache_mode TO 'force_custom_plan'", "plan_cache_mode TO 'force_generic_plan'", 1)
		}
		ddl = append(ddl, def, "ALTER FUNCTION "+schema+"."+p+" OWNER TO recall_owner",
			"GRANT EXECUTE ON FUNCTION "+schema+"."+p+" TO recall_runtime")
	}
	for _, q := range ddl {
		if _, err := conn.Exec(ctx, q); err != nil {
			b.Fatalf("%s: %v", q[:min(60, len(q))], err)
		}
	}
	b.Cleanup(func() {
		c, err := pgx.ConnectConfig(context.Background(), admin)
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Close(context.Background()) //nolint:errcheck // a scratch connection
		if _, err := c.Exec(context.Background(), "SET citus.enable_ddl_propagation = off; DROP SCHEMA "+schema+" CASCADE"); err != nil {
			b.Error(err)
		}
	})
	text, err := st.Routed([]string{set})
	if err != nil {
		b.Fatal(err)
	}
	text = strings.NewReplacer("recall.probe_titles_routed(", schema+".probe_titles_routed(",
		"recall.probe_entities_routed(", schema+".probe_entities_routed(").Replace(onShards(text))
	pool, err := testdb.NewPool(ctx, admin, testdb.RuntimeRole, cdb.Name)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return &direct{st: st, text: text, pool: pool}
}

// run is one direct recall for q as who: the visible sets on the coordinator, then the
// statement on the worker. It returns the first ten ids.
func (d *direct) run(b *testing.B, cdb *testdb.DB, who statement.Scopes, q statement.Query, s statement.Settings) []int64 {
	ctx := context.Background()
	ro := pgx.TxOptions{AccessMode: pgx.ReadOnly}
	err := pgx.BeginTxFunc(ctx, cdb.Runtime, ro, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, who.Read, who.Write); err != nil {
			return err
		}
		_, err := statement.OneSet(ctx, tx)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	args, err := d.st.Args(q, s)
	if err != nil {
		b.Fatal(err)
	}
	var ids []int64
	err = pgx.BeginTxFunc(ctx, d.pool, ro, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, who.Read, who.Write, s.Session()...); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, d.text, args)
		if err != nil {
			return err
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return err
			}
			if len(ids) < 10 {
				ids = append(ids, vals[0].(int64))
			}
		}
		return rows.Err()
	})
	if err != nil {
		b.Fatal(err)
	}
	return ids
}

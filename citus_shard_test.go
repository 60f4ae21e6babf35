package recall_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// TestCitusShardProbes: on the worker that holds a scope set's shards, the shard probes
// (recall.probe_titles_shard, probe_entities_shard: the routed probes' queries on the shard
// tables, by EXECUTE) return exactly what the routed probes return there, for exact and fuzzy
// titles and names, by either way of finding fuzzy matches (the index, the caller's postings),
// under the caller's read scopes (a reader of another set gets nothing); on a worker without
// the set's shards they refuse, SQLSTATE 55000.
func TestCitusShardProbes(t *testing.T) {
	t.Parallel()
	cdb, _ := distributedPair(t)
	ctx := context.Background()
	engines, _ := enginePair(t, recall.Config{}, cdb)
	user := recall.User{ID: "w", Read: []string{"t"}, Write: []string{"t"}}
	b := recall.Batch{Scopes: []string{"t"},
		Sources:  []recall.Source{{ID: "log", Title: "Harbor crane log"}, {ID: "trip", Title: "The northern lights trip"}},
		Entities: []recall.Entity{{ID: "ana", Name: "Ana Lima"}, {ID: "oslo", Name: "Oslo"}, {ID: "crane", Name: "Harbour Crane Nine"}}}
	for i := range 12 {
		b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("m%d", i), Source: []string{"log", "trip"}[i%2], Position: i/2 + 1,
			Text: fmt.Sprintf("Ana Lima saw the harbor crane from Oslo on day %d.", i)})
	}
	if _, err := engines[0].Write(ctx, user, b); err != nil {
		t.Fatal(err)
	}
	var db string
	if err := cdb.Owner.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	type probe struct{ routed, shard string }
	probes := []probe{
		{`SELECT id, sim FROM recall.probe_titles_routed('{t}', $1, 16, 4, 0.6)`, `SELECT id, sim FROM recall.probe_titles_shard('{t}', $1, 16, 4, 0.6)`},
		{`SELECT id, sim FROM recall.probe_entities_routed('{t}', string_to_array(lower($1), ' '), true, 0.7)`,
			`SELECT id, sim FROM recall.probe_entities_shard('{t}', string_to_array(lower($1), ' '), true, 0.7)`},
	}
	questions := []string{"what is in the harbor crane log", "the northern light trip", "harbour cranes nine", "ana lima", "oslo", "nothing here"}
	holders, refusals, found := 0, 0, 0
	for _, u := range strings.Fields(os.Getenv(testdb.EnvCitusWorkers)) {
		cfg, err := pgx.ParseConfig(u)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Database, cfg.User = db, testdb.RuntimeRole
		w, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close(ctx) //nolint:errcheck // closing a connection
		run := func(read, way, sql, q string) ([]string, error) {
			tx, err := w.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx) //nolint:errcheck // read only
			if _, err := tx.Exec(ctx, `SELECT set_config('recall.read_scopes', $1, true), set_config('pg_trgm.similarity_threshold', '0.3', true),
				set_config('recall.title_probe', $2, true), set_config('recall.entity_probe', $2, true)`, read, way); err != nil {
				t.Fatal(err)
			}
			rows, err := tx.Query(ctx, sql+" ORDER BY id", q)
			if err != nil {
				return nil, err
			}
			return pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
				var id int64
				var sim float64
				err := r.Scan(&id, &sim)
				return fmt.Sprintf("%d:%.6f", id, sim), err
			})
		}
		_, err = run("{t}", "", probes[0].shard, questions[0])
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "55000" {
			refusals++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		holders++
		for _, p := range probes {
			for _, way := range []string{"", "scope", "index"} {
				for _, q := range questions {
					want, err := run("{t}", way, p.routed, q)
					if err != nil {
						t.Fatal(err)
					}
					got, err := run("{t}", way, p.shard, q)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Errorf("%q (%s way) on the holder: shard probe %v, routed probe %v (%s)", q, way, got, want, p.shard)
					}
					found += len(got)
					if other, err := run("{u}", way, p.shard, q); err != nil || len(other) != 0 {
						t.Errorf("%q (%s way) read as {u}: %v, %v; want nothing", q, way, other, err)
					}
				}
			}
		}
	}
	if holders != 1 || refusals != 1 {
		t.Fatalf("%d workers answered and %d refused; want one of each", holders, refusals)
	}
	if found == 0 {
		t.Fatal("no probe found anything: the comparison proves nothing")
	}
}

// TestCitusShardRecall: the maximal statement's shard form, run on the worker that holds the
// caller's scope set (statement.RunOnShard, the placement read by statement.PlacementOf as
// the caller on the coordinator), returns the candidates the routed statement returns
// through the coordinator, the same rows in the same order with the same lane ranks and
// scores, for every question of a set of three memories' sources and names; a reader of
// another set gets nothing from the same shard.
func TestCitusShardRecall(t *testing.T) {
	t.Parallel()
	cdb, _ := distributedPair(t)
	ctx := context.Background()
	engines, emb := enginePair(t, recall.Config{}, cdb)
	for _, set := range []string{"t", "u"} {
		user := recall.User{ID: set, Read: []string{set}, Write: []string{set}}
		b := recall.Batch{Scopes: []string{set},
			Sources:  []recall.Source{{ID: "log", Title: "Harbor crane log"}, {ID: "trip", Title: "The northern lights trip"}},
			Entities: []recall.Entity{{ID: "ana", Name: "Ana Lima"}, {ID: "oslo", Name: "Oslo"}}}
		for i := range 30 {
			b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("m%d", i), Source: []string{"log", "trip"}[i%2], Position: i/2 + 1,
				Speaker: []string{"Ana", "Ben"}[i%2], Text: fmt.Sprintf("%s said the harbor crane %s on day %d in Oslo?", set,
					[]string{"broke", "was fixed", "lifted the ferry", "stood still", "glowed under the northern lights"}[i%5], i)})
		}
		if _, err := engines[0].Write(ctx, user, b); err != nil {
			t.Fatal(err)
		}
	}
	st, err := statement.Build(statement.Shape{Dim: 64, Fuzzy: true, Plan: statement.Maximal})
	if err != nil {
		t.Fatal(err)
	}
	who := statement.Scopes{Read: []string{"t"}}
	var place statement.Placement
	if err := pgx.BeginTxFunc(ctx, cdb.Runtime, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, who.Read, nil); err != nil {
			return err
		}
		place, err = statement.PlacementOf(ctx, tx, []string{"t"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var worker *pgx.ConnConfig
	for _, u := range strings.Fields(os.Getenv(testdb.EnvCitusWorkers)) {
		if cfg, err := pgx.ParseConfig(u); err == nil && int(cfg.Port) == place.Port {
			worker = cfg
		}
	}
	if worker == nil || len(place.Shards) < 11 {
		t.Fatalf("placement %+v: no worker of %s at its port, or too few shards", place, testdb.EnvCitusWorkers)
	}
	pool, err := testdb.NewPool(ctx, worker, testdb.RuntimeRole, cdb.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	total := 0
	for _, raw := range []string{"What did Ana say about the harbor crane?", "northern lights trip", "the ferry in Oslo", "Ben day 7", "nothing like this"} {
		vec, err := emb.Embed(ctx, []string{raw}, embed.Query)
		if err != nil {
			t.Fatal(err)
		}
		q := statement.Query{Text: strings.ToLower(raw), Raw: raw, Vector: vec[0], Now: now}
		want, err := statement.Run(ctx, cdb.Runtime, who, st, q, statement.DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := statement.RunOnShard(ctx, pool, who, st, []string{"t"}, place, q, statement.DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
			t.Fatalf("%q on the shard:\n%s\nrouted:\n%s", raw, g, w)
		}
		total += len(got)
		other, _, err := statement.RunOnShard(ctx, pool, statement.Scopes{Read: []string{"u"}}, st, []string{"t"}, place, q, statement.DefaultSettings())
		if err != nil || len(other) != 0 {
			t.Fatalf("%q read as a reader of u on t's shards: %d rows, %v; want none", raw, len(other), err)
		}
	}
	if total == 0 {
		t.Fatal("no question found anything: the comparison proves nothing")
	}
}

// TestCitusDirectFallback: statement.RunDirect falls back to the routed statement, with the
// same candidates, when the set's worker cannot be reached (a closed port) and when the pool
// it is given is another worker's (the shard tables are not there): the cluster's failures,
// not the caller's. A reader of several sets is still refused, typed.
func TestCitusDirectFallback(t *testing.T) {
	t.Parallel()
	cdb, _ := distributedPair(t)
	ctx := context.Background()
	engines, emb := enginePair(t, recall.Config{}, cdb)
	writeCranes(t, engines[0], "t")
	writeCranes(t, engines[0], "u")
	st, q := craneQuery(t, emb)
	who := statement.Scopes{Read: []string{"t"}}
	want, routed, err := statement.RunText(ctx, cdb.Runtime, who, st, q, statement.DefaultSettings())
	if err != nil || len(want) == 0 {
		t.Fatalf("routed: %d rows, %v", len(want), err)
	}
	byPort := workerPools(t, cdb)
	var pools []*pgxpool.Pool
	for _, port := range slices.Sorted(maps.Keys(byPort)) {
		pools = append(pools, byPort[port])
	}
	unreachable, err := pgxpool.New(ctx, "postgres://recall_runtime@127.0.0.1:1/"+cdb.Name+"?connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer unreachable.Close()
	direct := 0
	for name, pick := range map[string]func(int) *pgxpool.Pool{
		"unreachable":  func(int) *pgxpool.Pool { return unreachable },
		"first worker": func(int) *pgxpool.Pool { return pools[0] },
		"last worker":  func(int) *pgxpool.Pool { return pools[len(pools)-1] },
	} {
		workers := func(_ context.Context, _ string, port int) (statement.Beginner, error) { return pick(port), nil }
		got, text, err := statement.RunDirect(ctx, cdb.Runtime, workers, who, st, q, statement.DefaultSettings())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
			t.Fatalf("%s:\n%s\nrouted:\n%s", name, g, w)
		}
		if text != routed {
			direct++ // read on the set's shards: the worker given was the right one
		}
	}
	if direct != 1 {
		t.Fatalf("%d of the three reads were direct; want one (the worker holding the shards)", direct)
	}
	two := statement.Scopes{Read: []string{"t", "u"}}
	if _, _, err := statement.RunDirect(ctx, cdb.Runtime, nil, two, st, q, statement.DefaultSettings()); !errors.Is(err, statement.ErrManySets) {
		t.Fatalf("a reader of two sets: %v, want ErrManySets", err)
	}
}

// TestCitusDirectSetsChange: what RunDirect keeps between calls (the set's placement) never
// stands for the caller's sets: while a reader of scopes t and v sees one set, each call's
// candidates are the routed statement's, read on the shards; once a write makes a second set
// visible to the same scopes, the next calls read both sets. A new engine's first recall is
// read on the shards too.
func TestCitusDirectSetsChange(t *testing.T) {
	t.Parallel()
	cdb, _ := distributedPair(t)
	ctx := context.Background()
	engines, emb := enginePair(t, recall.Config{}, cdb)
	writeCranes(t, engines[0], "t")
	// The engine's first recall already reads the set's shards: New found the schema
	// distributed.
	tr, err := engines[0].Trace(ctx, recall.User{ID: "r", Read: []string{"t"}}, "harbor crane", 500, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tr.SQL, "recall.probe_titles_shard(") || len(tr.Candidates) != 10 {
		t.Fatalf("the engine's first recall: %d candidates, read on the shards: %v", len(tr.Candidates), strings.Contains(tr.SQL, "_shard("))
	}
	st, q := craneQuery(t, emb)
	who := statement.Scopes{Read: []string{"t", "v"}}
	want, routed, err := statement.RunText(ctx, cdb.Runtime, who, st, q, statement.DefaultSettings())
	if err != nil || len(want) != 10 {
		t.Fatalf("routed: %d rows, %v", len(want), err)
	}
	pools := workerPools(t, cdb)
	workers := func(_ context.Context, _ string, port int) (statement.Beginner, error) { return pools[port], nil }
	for i := range 3 {
		got, text, err := statement.RunDirect(ctx, cdb.Runtime, workers, who, st, q, statement.DefaultSettings())
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if text == routed {
			t.Fatalf("call %d was routed, not read on the shards", i)
		}
		if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
			t.Fatalf("call %d:\n%s\nrouted:\n%s", i, g, w)
		}
	}
	writeCranes(t, engines[0], "v")
	for i := range 2 {
		got, _, err := statement.RunDirect(ctx, cdb.Runtime, workers, who, st, q, statement.DefaultSettings())
		if err != nil {
			t.Fatalf("call %d after set v was written: %v", i, err)
		}
		crane := map[string]int{}
		for _, c := range got {
			crane[strings.Fields(c.Text)[3]]++
		}
		if crane["t"] != 10 || crane["v"] != 10 || len(got) != 20 {
			t.Fatalf("call %d after set v was written: %d rows, cranes %v (want both sets')", i, len(got), crane)
		}
	}
}

// workerPools opens a pool of the runtime role in cdb's database on each worker, by port,
// closed when t ends.
func workerPools(t *testing.T, cdb *testdb.DB) map[int]*pgxpool.Pool {
	pools := map[int]*pgxpool.Pool{}
	for _, u := range strings.Fields(os.Getenv(testdb.EnvCitusWorkers)) {
		cfg, err := pgx.ParseConfig(u)
		if err != nil {
			t.Fatal(err)
		}
		p, err := testdb.NewPool(context.Background(), cfg, testdb.RuntimeRole, cdb.Name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		pools[int(cfg.Port)] = p
	}
	return pools
}

// craneQuery is the maximal statement of the embedder's 64 dimensions and the question
// "harbor crane" for it.
func craneQuery(t *testing.T, emb embed.Embedder) (*statement.Statement, statement.Query) {
	st, err := statement.Build(statement.Shape{Dim: 64, Fuzzy: true, Plan: statement.Maximal})
	if err != nil {
		t.Fatal(err)
	}
	vec, err := emb.Embed(context.Background(), []string{"harbor crane"}, embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	return st, statement.Query{Text: "harbor crane", Raw: "harbor crane", Vector: vec[0], Now: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)}
}

// writeCranes writes ten turns of a source "log" about the harbor crane into scope set set.
func writeCranes(t *testing.T, e *recall.Engine, set string) {
	b := recall.Batch{Scopes: []string{set}, Sources: []recall.Source{{ID: "log", Title: "Harbor crane log"}}}
	for i := range 10 {
		b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("m%d", i), Source: "log", Position: i + 1,
			Text: fmt.Sprintf("The harbor crane %s was fixed on day %d.", set, i)})
	}
	if _, err := e.Write(context.Background(), recall.User{ID: set, Read: []string{set}, Write: []string{set}}, b); err != nil {
		t.Fatal(err)
	}
}

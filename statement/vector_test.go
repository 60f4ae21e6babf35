package statement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// TestVectorBranches: the vector lane runs exactly one of its branches, chosen by how many
// memories the caller sees (n) against all of them (N): exact when n^2 <= VectorExactScale N.
// Here N = 1,540 (after ANALYZE), n = 40 for a reader of small and 1,540 for one of both. The exact branch returns the true nearest visible memories (a Go
// cosine over the caller's rows, in order); the HNSW branch fills the lane with visible rows.
// EXPLAIN ANALYZE shows that the other branch never ran.
func TestVectorBranches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	const dim = 8
	tx := testdb.BeginAs(t, db.Runtime, []string{"big", "small"}, []string{"big", "small"})
	if _, err := tx.Exec(ctx, `SELECT recall.ensure_vector_index(8)`); err != nil {
		t.Fatal(err)
	}
	vecs := map[int64][]float32{}
	scopeOf := map[int64]string{}
	for _, part := range []struct {
		scope string
		n     int
	}{{"big", 1500}, {"small", 40}} {
		for i := range part.n {
			v := unitVector(uint64(1000+len(vecs)), dim)
			var id int64
			if err := tx.QueryRow(ctx, `INSERT INTO recall.memories (external_id, scopes, text, embedding)
				VALUES ($1, ARRAY[$2], 'plain words', $3) RETURNING id`,
				fmt.Sprintf("%s%d", part.scope, i), part.scope, pgvector.NewVector(v)).Scan(&id); err != nil {
				t.Fatal(err)
			}
			vecs[id], scopeOf[id] = v, part.scope
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Owner.Exec(ctx, `ANALYZE recall.memories`); err != nil {
		t.Fatal(err)
	}

	q := statement.Query{Raw: "x", Vector: unitVector(3, dim)}
	st, err := statement.Build(statement.Shape{Dim: dim, Plan: statement.Only(statement.Vector)})
	if err != nil {
		t.Fatal(err)
	}
	// nearest is the exact answer: the k visible memories closest to q, by (distance, id).
	nearest := func(read []string, k int) []int64 {
		var ids []int64
		for id := range vecs {
			if slices.Contains(read, scopeOf[id]) {
				ids = append(ids, id)
			}
		}
		sortByDistance(ids, vecs, q.Vector)
		return ids[:k]
	}

	for _, c := range []struct {
		read       []string
		exactScale float64
		filtered   bool // a filter every memory passes: the exact search reads the heap
		want       string
	}{
		{[]string{"small"}, 1000, false, branchExact},
		{[]string{"small"}, 1000, true, branchExactHeap},
		{[]string{"small"}, 0, false, branchHNSW},
		{[]string{"small"}, 1.04, false, branchExact}, // 1600 <= 1.04 * 1540
		{[]string{"small"}, 1.03, false, branchHNSW},
		{[]string{"big", "small"}, 1000, false, branchHNSW},
		{[]string{"big", "small"}, 1540, false, branchExact},
		{[]string{"big", "small"}, 1540, true, branchExactHeap},
	} {
		name := fmt.Sprintf("read=%v exact_scale=%g filtered=%v", c.read, c.exactScale, c.filtered)
		s := statement.DefaultSettings()
		s.VectorK, s.K, s.VectorMaxDistance, s.VectorExactScale = 20, 100, 2, c.exactScale
		q := q
		if c.filtered {
			q.Filters.Kinds = []string{"world"}
		}
		got := run(t, db, c.read, statement.Only(statement.Vector), q, s)
		if len(got) != 20 {
			t.Fatalf("%s: %d rows, want 20", name, len(got))
		}
		ids := make([]int64, len(got))
		for i, g := range got {
			if !slices.Contains(c.read, scopeOf[g.ID]) {
				t.Fatalf("%s: memory %d of scope %s returned", name, g.ID, scopeOf[g.ID])
			}
			ids[i] = g.ID
		}
		plan := strings.Join(explain(t, db.Runtime, c.read, st, q, s, "ANALYZE, COSTS OFF"), "\n")
		if got := ranBranches(t, plan); !slices.Equal(got, []string{c.want}) {
			t.Fatalf("%s: branches %v ran, want only %s:\n%s", name, got, c.want, plan)
		}
		if c.want != branchHNSW {
			if want := nearest(c.read, 20); !slices.Equal(ids, want) {
				t.Fatalf("%s: exact branch returned %v, the nearest visible memories are %v", name, ids, want)
			}
		}
		if c.want == branchExact && !strings.Contains(plan, "Function Scan on vector_nearest") {
			t.Fatalf("%s: the exact branch did not call recall.vector_nearest:\n%s", name, plan)
		}
		if c.want == branchHNSW && !strings.Contains(plan, "memories_embedding_8_hnsw") {
			t.Fatalf("%s: the HNSW branch did not read the HNSW index:\n%s", name, plan)
		}
	}
}

// TestVectorNearestIndexOnly: recall.vector_nearest returns the k nearest memories the caller
// sees by the row-security rule (scopes overlap the read scopes; here also through a scope
// set of two names), while nearer memories of other scopes exist, and it reads them from the
// covering scope index without one heap fetch (pg_stat_xact_all_tables counts the backend's
// fetches of this transaction).
func TestVectorNearestIndexOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	if _, err := db.Owner.Exec(ctx, `SELECT recall.ensure_vector_index(8)`); err != nil {
		t.Fatal(err)
	}
	q := unitVector(7, 8)
	vecs := map[int64][]float32{}
	visible := map[int64]bool{}
	var ext []string
	var scopeSets, embs []string
	var raw [][]float32
	for i := range 3000 {
		scopes := "{big}"
		switch i % 10 {
		case 0:
			scopes = "{small}"
		case 1:
			scopes = "{other,small}"
		}
		v := unitVector(uint64(100+i), 8)
		if i%10 == 5 { // invisible memories right next to the query
			for d := range v {
				v[d] = q[d] + float32(i%7)*1e-3
			}
		}
		ext, scopeSets = append(ext, fmt.Sprint("m", i)), append(scopeSets, scopes)
		embs, raw = append(embs, pgvector.NewVector(v).String()), append(raw, v)
	}
	// The test server commits asynchronously (scripts/db.sh), and VACUUM cannot mark a page
	// all-visible while its rows' commit is not yet flushed: this commit waits for the flush.
	ins, err := db.Owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Rollback(ctx) //nolint:errcheck // after Commit this is a no-op
	if _, err := ins.Exec(ctx, `SET LOCAL synchronous_commit = on`); err != nil {
		t.Fatal(err)
	}
	rows, err := ins.Query(ctx, `INSERT INTO recall.memories (external_id, scopes, text, embedding)
		SELECT e, s::text[], 'words', v::vector FROM unnest($1::text[], $2::text[], $3::text[]) AS u(e, s, v)
		RETURNING id, external_id`, ext, scopeSets, embs)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var e string
		if err := rows.Scan(&id, &e); err != nil {
			t.Fatal(err)
		}
		var i int
		if _, err := fmt.Sscanf(e, "m%d", &i); err != nil {
			t.Fatal(err)
		}
		vecs[id], visible[id] = raw[i], i%10 < 2
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if err := ins.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	vacuumAllVisible(t, db)
	var want []int64
	for id := range vecs {
		if visible[id] {
			want = append(want, id)
		}
	}
	sortByDistance(want, vecs, q)
	want = want[:25]

	tx := testdb.BeginAs(t, db.Runtime, []string{"small"}, nil)
	defer tx.Rollback(ctx) //nolint:errcheck // read only
	fetches := func() int64 {
		var n int64
		if err := tx.QueryRow(ctx, `SELECT idx_tup_fetch + seq_tup_read FROM pg_stat_xact_all_tables
			WHERE relid = 'recall.memories'::regclass`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := fetches()
	rows, err = tx.Query(ctx, `SELECT id FROM recall.vector_nearest($1, 25)`, pgvector.NewVector(q))
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("vector_nearest returned %v, the nearest visible memories are %v", got, want)
	}
	if n := fetches() - before; n != 0 {
		t.Fatalf("vector_nearest read %d of the caller's 600 rows from the heap: want an index-only scan", n)
	}
}

// vacuumAllVisible vacuums recall.memories until every page of it is marked all-visible, which
// an index-only scan needs to read no row from the heap. VACUUM marks a page only when its rows
// are older than every snapshot the server still keeps for the database's tables, and skips a
// page another backend holds pinned; on a test server shared by parallel tests either can
// happen for a moment (a fresh-clone CI run read all 600 rows from the heap after one VACUUM).
// Pages still unmarked after 30 s of tries fail the test, saying how many.
func vacuumAllVisible(t *testing.T, db *testdb.DB) {
	t.Helper()
	ctx := context.Background()
	var pages, visible int
	for range 150 {
		if _, err := db.Owner.Exec(ctx, `VACUUM (ANALYZE) recall.memories`); err != nil {
			t.Fatal(err)
		}
		if err := db.Owner.QueryRow(ctx, `SELECT relpages, relallvisible FROM pg_class
			WHERE oid = 'recall.memories'::regclass`).Scan(&pages, &visible); err != nil {
			t.Fatal(err)
		}
		if pages > 0 && visible == pages {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("VACUUM marked %d of recall.memories' %d pages all-visible in 30 s: the server's oldest snapshot stays older than the test's rows", visible, pages)
}

// sortByDistance orders ids by the cosine distance of their vectors to q, then by id: the
// order of the vector lane.
func sortByDistance(ids []int64, vecs map[int64][]float32, q []float32) {
	dist := func(id int64) float64 {
		var dot, nv, nq float64
		for i, x := range vecs[id] {
			dot += float64(x) * float64(q[i])
			nv += float64(x) * float64(x)
			nq += float64(q[i]) * float64(q[i])
		}
		return 1 - dot/math.Sqrt(nv*nq)
	}
	slices.SortFunc(ids, func(a, b int64) int {
		if da, db := dist(a), dist(b); da != db {
			if da < db {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
}

// TestScopeKeyLookupsEstimatedSmall: the generic plan prices a lookup of memories by scope-set
// key as a small read, however few scope sets there are. Postgres prices scope_key = (a
// parameter) at 1 / (distinct scope sets): with two sets, half the table, and at 1M memories
// the vector lane's exact branch (which only runs for a caller who sees few memories) was
// planned as a scan of all of them (616 ms). Migration 00017 sets the column's statistics to
// sets of about 100 memories; without it the estimate here is 2,500 rows.
func TestScopeKeyLookupsEstimatedSmall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	if _, err := db.Owner.Exec(ctx, `
		INSERT INTO recall.memories (external_id, scopes, text)
		SELECT 'm' || i, CASE WHEN i % 100 = 0 THEN '{small}'::text[] ELSE '{big}'::text[] END, 'memory ' || i
		FROM generate_series(1, 5000) AS i`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Owner.Exec(ctx, `ANALYZE recall.memories`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	var plan string
	for _, q := range []string{
		`SET LOCAL plan_cache_mode = force_generic_plan`,
		`PREPARE by_key(text) AS SELECT id FROM recall.memories WHERE scope_key = $1`,
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.QueryRow(ctx, `EXPLAIN (FORMAT JSON) EXECUTE by_key('x')`).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var parsed []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(plan), &parsed); err != nil || len(parsed) != 1 {
		t.Fatalf("EXPLAIN output %s: %v", plan, err)
	}
	if r := parsed[0].Plan.Rows; r > 200 {
		t.Fatalf("a scope set is estimated at %g of 5,000 memories, want about 100", r)
	}
}

// The vector lane's branches, told apart by what their one-time filter gates: HNSW reads
// the HNSW index, the exact search calls recall.vector_nearest, the exact search with
// filters reads the caller's memories from the heap.
const (
	branchHNSW      = "hnsw"
	branchExact     = "exact"
	branchExactHeap = "exact-heap"
)

// ranBranches lists the vector branches that ran in an EXPLAIN ANALYZE: those whose scan
// under their one-time filter is not marked "never executed" (a filter the planner folded
// to false leaves its branch out of the plan).
func ranBranches(t *testing.T, plan string) []string {
	t.Helper()
	var out []string
	lines := strings.Split(plan, "\n")
	seen := 0
	for i, l := range lines {
		if !strings.Contains(l, "One-Time Filter: ") || strings.HasSuffix(l, "false") {
			continue
		}
		// The first scan under the filter says which branch it gates.
		var b, scan string
		for _, c := range lines[i+1:] {
			if strings.Contains(c, "One-Time Filter: ") {
				break
			}
			switch {
			case strings.Contains(c, "_hnsw on memories"):
				b = branchHNSW
			case strings.Contains(c, "Function Scan on vector_nearest"):
				b = branchExact
			case strings.Contains(c, "Scan using memories_") && strings.Contains(c, " on memories"):
				b = branchExactHeap
			default:
				continue
			}
			scan = c
			break
		}
		if b == "" {
			continue
		}
		seen++
		if !strings.Contains(scan, "never executed") {
			out = append(out, b)
		}
	}
	if seen == 0 {
		t.Fatalf("no one-time filter of a vector branch in the plan:\n%s", plan)
	}
	return out
}

// TestEmbeddingsStoredInline: a memory's embedding, text and lexemes stay in its row
// (migration 00020), even at 1024 dimensions (4 kB), so reading them costs no TOAST probe.
// With pgvector's default storage the rows below put their embeddings out of line.
func TestEmbeddingsStoredInline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	if _, err := db.Owner.Exec(ctx, `
		INSERT INTO recall.memories (external_id, scopes, text, embedding)
		SELECT 'm' || i, '{acme}', repeat('words of memory ' || i || ' ', 20),
		       (SELECT array_agg(sin(i * 1000 + d))::vector FROM generate_series(1, 1024) AS d)
		FROM generate_series(1, 20) AS i`); err != nil {
		t.Fatal(err)
	}
	// The TOAST relation's size: the owner may not read pg_toast, but sizes are public.
	var toastBytes int64
	if err := db.Owner.QueryRow(ctx, `SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'recall.memories'::regclass`).Scan(&toastBytes); err != nil {
		t.Fatal(err)
	}
	if toastBytes != 0 {
		t.Fatalf("the TOAST relation holds %d bytes for 20 memories: embeddings were moved out of their rows", toastBytes)
	}
}

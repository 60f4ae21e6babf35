package statement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

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
		dist := func(id int64) float64 {
			var dot, nv, nq float64
			for i, x := range vecs[id] {
				dot += float64(x) * float64(q.Vector[i])
				nv += float64(x) * float64(x)
				nq += float64(q.Vector[i]) * float64(q.Vector[i])
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
		return ids[:k]
	}

	for _, c := range []struct {
		read       []string
		exactScale float64
		exact      bool
	}{
		{[]string{"small"}, 1000, true},
		{[]string{"small"}, 0, false},
		{[]string{"small"}, 1.04, true}, // 1600 <= 1.04 * 1540
		{[]string{"small"}, 1.03, false},
		{[]string{"big", "small"}, 1000, false},
		{[]string{"big", "small"}, 1540, true},
	} {
		name := fmt.Sprintf("read=%v exact_scale=%g", c.read, c.exactScale)
		s := statement.DefaultSettings()
		s.VectorK, s.K, s.VectorMaxDistance, s.VectorExactScale = 20, 100, 2, c.exactScale
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
		hnsw, byKey := ran(t, plan, true), ran(t, plan, false)
		if c.exact {
			if want := nearest(c.read, 20); !slices.Equal(ids, want) {
				t.Fatalf("%s: exact branch returned %v, the nearest visible memories are %v", name, ids, want)
			}
			if hnsw || !byKey {
				t.Fatalf("%s: want only the exact branch to run (HNSW ran %v, exact ran %v):\n%s", name, hnsw, byKey, plan)
			}
		} else if !hnsw || byKey {
			t.Fatalf("%s: want only the HNSW branch to run (HNSW ran %v, exact ran %v):\n%s", name, hnsw, byKey, plan)
		}
	}
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

// ran reports whether the HNSW branch (gated by "One-Time Filter: (NOT $n)") or the exact one
// ("One-Time Filter: $n") ran in an EXPLAIN ANALYZE: the filter's child is not marked "never
// executed".
func ran(t *testing.T, plan string, hnsw bool) bool {
	t.Helper()
	lines := strings.Split(plan, "\n")
	for i, l := range lines {
		if strings.Contains(l, "One-Time Filter:") && strings.Contains(l, "NOT") == hnsw && i+1 < len(lines) {
			return !strings.Contains(lines[i+1], "never executed")
		}
	}
	t.Fatalf("no one-time filter of the hnsw=%v branch in the plan:\n%s", hnsw, plan)
	return false
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

package migrations_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/pgvector/pgvector-go"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/migrations"
)

// TestEnsureVectorIndex: one partial HNSW index per dimension, created on demand by the
// runtime role, used by a query that repeats its expression, safe under concurrent calls.
func TestEnsureVectorIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	scopes := []string{"acme"}

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tx, err := db.Runtime.Begin(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer tx.Rollback(ctx) //nolint:errcheck // after Commit this is a no-op
			var name string
			if err := tx.QueryRow(ctx, `SELECT recall.ensure_vector_index(3)`).Scan(&name); err != nil {
				errs <- err
				return
			}
			if name != "memories_embedding_3_hnsw" {
				errs <- fmt.Errorf("index name %q", name)
				return
			}
			errs <- tx.Commit(ctx)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent ensure_vector_index: %v", err)
		}
	}
	var def string
	if err := db.Owner.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE indexname = 'memories_embedding_3_hnsw'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def, "hnsw") || !strings.Contains(def, "vector(3)") || !strings.Contains(def, "vector_dims(embedding) = 3") {
		t.Fatalf("index definition %q", def)
	}
	// Small callers' exact search reads embeddings by scope key from a covering index, for
	// dimensions up to vector_scope_max_dim; a larger one gets only HNSW.
	if err := db.Owner.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE indexname = 'memories_embedding_3_scope'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def, "(scope_key, id) INCLUDE (embedding)") || !strings.Contains(def, "vector_dims(embedding) = 3") {
		t.Fatalf("scope index definition %q", def)
	}
	for _, c := range []struct {
		dim  int
		want bool
	}{{512, true}, {513, false}} {
		tx := testdb.BeginAs(t, db.Runtime, scopes, scopes)
		if _, err := tx.Exec(ctx, `SELECT recall.ensure_vector_index($1)`, c.dim); err != nil {
			t.Fatal(err)
		}
		var got bool
		if err := tx.QueryRow(ctx, `SELECT to_regclass(format('recall.memories_embedding_%s_scope', $1::int)) IS NOT NULL`, c.dim).Scan(&got); err != nil {
			t.Fatal(err)
		}
		_ = tx.Rollback(ctx)
		if got != c.want {
			t.Errorf("dimension %d: scope index exists %v, want %v", c.dim, got, c.want)
		}
	}

	// Two dimensions live side by side.
	tx := testdb.BeginAs(t, db.Runtime, scopes, scopes)
	if _, err := tx.Exec(ctx, `SELECT recall.ensure_vector_index(5)`); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		v3 := pgvector.NewVector([]float32{float32(i), 1, float32(i % 7)})
		v5 := pgvector.NewVector([]float32{1, float32(i), 0, 0, float32(i % 3)})
		if _, err := tx.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, text, embedding) VALUES ($1, '{acme}', 'x', $2), ($3, '{acme}', 'y', $4)`,
			fmt.Sprintf("a%d", i), v3, fmt.Sprintf("b%d", i), v5); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Owner.Exec(ctx, `ANALYZE recall.memories`); err != nil {
		t.Fatal(err)
	}

	tx = testdb.BeginAs(t, db.Runtime, scopes, scopes)
	// On 400 rows a sort of the scope index's rows costs less than HNSW; the test asks
	// whether HNSW serves the ordered query, so sorting is priced out.
	if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off`); err != nil {
		t.Fatal(err)
	}
	q := pgvector.NewVector([]float32{1, 1, 1})
	rows, err := tx.Query(ctx, `EXPLAIN SELECT id FROM recall.memories WHERE vector_dims(embedding) = 3
		ORDER BY embedding::vector(3) <=> $1::vector(3) LIMIT 5`, q)
	if err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if !strings.Contains(plan.String(), "memories_embedding_3_hnsw") {
		t.Fatalf("the 3-dimension query does not use its index:\n%s", plan.String())
	}

	for _, dim := range []int{0, -1, 2001} {
		tx := testdb.BeginAs(t, db.Runtime, scopes, scopes)
		_, err := tx.Exec(ctx, `SELECT recall.ensure_vector_index($1)`, dim)
		if sqlState(err) != "22023" {
			t.Errorf("dimension %d: %v, want SQLSTATE 22023", dim, err)
		}
		_ = tx.Rollback(ctx)
	}
}

// TestLexemes: the BM25 lane's lexical data follows text and source title, and document
// length counts lexeme occurrences (tf units, stop words excluded).
func TestLexemes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := testdb.Tx(t, []string{"acme"}, []string{"acme"})
	var src, mem int64
	if err := tx.QueryRow(ctx, `INSERT INTO recall.sources (external_id, scopes, title) VALUES ('s', '{acme}', 'Quantum Widgets') RETURNING id`).Scan(&src); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `INSERT INTO recall.memories (external_id, scopes, text, source_id)
		VALUES ('m', '{acme}', 'The cats are running and the cats sleep.', $1) RETURNING id`, src).Scan(&mem); err != nil {
		t.Fatal(err)
	}
	check := func(want string, wantLen int) {
		t.Helper()
		var lex string
		var n int
		if err := tx.QueryRow(ctx, `SELECT lexemes::text, doc_len FROM recall.memories WHERE id = $1`, mem).Scan(&lex, &n); err != nil {
			t.Fatal(err)
		}
		if lex != want || n != wantLen {
			t.Fatalf("lexemes %s, doc_len %d; want %s, %d", lex, n, want, wantLen)
		}
	}
	// "quantum widget" (2) + "cat run cat sleep" (4); stop words drop out.
	check(`'cat':4,9 'quantum':1 'run':6 'sleep':10 'widget':2`, 6)

	if _, err := tx.Exec(ctx, `UPDATE recall.sources SET title = 'Dogs' WHERE id = $1`, src); err != nil {
		t.Fatal(err)
	}
	check(`'cat':3,8 'dog':1 'run':5 'sleep':9`, 5)

	if _, err := tx.Exec(ctx, `UPDATE recall.memories SET text = 'Sleep.' WHERE id = $1`, mem); err != nil {
		t.Fatal(err)
	}
	check(`'dog':1 'sleep':2`, 2)
}

// TestPassagesSplitOnUp: a memory written before passages (migration 00015: passages NULL,
// its postings without passage frequencies) is split by Up once the function files are in
// place, and its postings rebuilt with them; a short memory gets '{}'. Up finds the function
// files changed (the record of one is dropped here), as it does after an upgrade.
func TestPassagesSplitOnUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	long := strings.Repeat("The harbor lantern burns all night. ", 30) // 180 words
	for i, text := range []string{long, "A short note on the harbor."} {
		if _, err := db.Owner.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ($1, '{acme}', $2)`,
			fmt.Sprint("m", i), text); err != nil {
			t.Fatal(err)
		}
	}
	// As a database from before 00015 holds them.
	if _, err := db.Owner.Exec(ctx, `UPDATE recall.memories SET passages = NULL`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Owner.Exec(ctx, `UPDATE recall.bm25_postings SET ptf = NULL, pdoc_len = NULL`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Owner.Exec(ctx, `DELETE FROM recall.function_files WHERE file = (SELECT min(file) FROM recall.function_files)`); err != nil {
		t.Fatal(err)
	}
	sqldb := db.OwnerSQL()
	defer sqldb.Close()
	if _, err := migrations.Up(ctx, sqldb); err != nil {
		t.Fatal(err)
	}
	var m0, m1 int
	if err := db.Owner.QueryRow(ctx, `SELECT (SELECT cardinality(passages) FROM recall.memories WHERE external_id = 'm0'),
		(SELECT cardinality(passages) FROM recall.memories WHERE external_id = 'm1')`).Scan(&m0, &m1); err != nil {
		t.Fatal(err)
	}
	// 30 sentences of 6 words: 13 to a passage of at most 80 words, so 3 passages.
	if m0 != 3 || m1 != 0 {
		t.Fatalf("after Up: %d and %d passages, want 3 and 0", m0, m1)
	}
	var ptf string
	if err := db.Owner.QueryRow(ctx, `SELECT p.ptf::text FROM recall.bm25_postings p JOIN recall.memories m ON m.id = p.memory_id
		WHERE m.external_id = 'm0' AND p.term = 'harbor'`).Scan(&ptf); err != nil {
		t.Fatal(err)
	}
	if ptf != "{13,13,4}" {
		t.Fatalf("harbor's frequency in each passage %s, want {13,13,4}", ptf)
	}
}

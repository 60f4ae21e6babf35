package migrations_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// visible is the documented read rule computed in Go: a row is visible when its scope set
// shares at least one scope with the caller's read scopes.
func visible(row, read []string) bool {
	for _, s := range row {
		if slices.Contains(read, s) {
			return true
		}
	}
	return false
}

// writable is the documented write rule: every scope of the row is a write scope.
func writable(row, write []string) bool {
	for _, s := range row {
		if !slices.Contains(write, s) {
			return false
		}
	}
	return len(row) > 0
}

var pool = []string{"acme", "acme/legal", "beta", "ceo@acme", "gamma", "ops:eu", "ops:us", "shared", "t_9", "z.z"}

func randomSet(r *rand.Rand, min, max int) []string {
	n := min + r.IntN(max-min+1)
	perm := r.Perm(len(pool))[:n]
	out := make([]string, n)
	for i, p := range perm {
		out[i] = pool[p]
	}
	sort.Strings(out)
	return out
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

type row struct {
	ext    string
	scopes []string
}

// seed inserts n memories, sources and entities with random scope sets as a caller that may
// write every scope, and returns them.
func seed(t *testing.T, db *testdb.DB, n int, r *rand.Rand) []row {
	t.Helper()
	ctx := context.Background()
	rows := make([]row, n)
	exts := make([]string, n)
	lits := make([]string, n)
	for i := range rows {
		rows[i] = row{ext: fmt.Sprintf("m%04d", i), scopes: randomSet(r, 1, 4)}
		exts[i] = rows[i].ext
		lits[i] = "{" + strings.Join(rows[i].scopes, ",") + "}"
	}
	tx := testdb.BeginAs(t, db.Runtime, pool, pool)
	for _, q := range []string{
		`INSERT INTO recall.sources (external_id, scopes, title) SELECT e, s::text[], 'title ' || e FROM unnest($1::text[], $2::text[]) AS u(e, s)`,
		`INSERT INTO recall.memories (external_id, scopes, text) SELECT e, s::text[], 'text of ' || e FROM unnest($1::text[], $2::text[]) AS u(e, s)`,
		`INSERT INTO recall.entities (external_id, scopes, name) SELECT e, s::text[], 'Entity ' || e FROM unnest($1::text[], $2::text[]) AS u(e, s)`,
	} {
		tag, err := tx.Exec(ctx, q, exts, lits)
		if err != nil {
			t.Fatal(err)
		}
		if tag.RowsAffected() != int64(n) {
			t.Fatalf("inserted %d rows, want %d", tag.RowsAffected(), n)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestVisibilityMatchesRule checks, for 1,000 rows with random scope sets and many random
// callers, that the runtime role sees exactly the rows the documented rule allows.
func TestVisibilityMatchesRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	r := rand.New(rand.NewPCG(1, 2))
	rows := seed(t, db, 1000, r)

	// The owner is not subject to row security: it sees all 1,000, an independent count.
	var all int
	if err := db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.memories`).Scan(&all); err != nil || all != 1000 {
		t.Fatalf("owner sees %d memories (%v), want 1000", all, err)
	}

	callers := [][]string{{}, pool, {"acme"}, {"nope"}}
	for range 40 {
		callers = append(callers, randomSet(r, 1, 4))
	}
	for _, read := range callers {
		var want []string
		for _, rw := range rows {
			if visible(rw.scopes, read) {
				want = append(want, rw.ext)
			}
		}
		tx := testdb.BeginAs(t, db.Runtime, read, nil)
		for _, table := range []string{"memories", "sources", "entities"} {
			rs, err := tx.Query(ctx, `SELECT external_id FROM recall.`+table+` ORDER BY external_id`)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pgx.CollectRows(rs, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("caller %v, table %s: sees %d rows, the rule allows %d", read, table, len(got), len(want))
			}
		}
		// An index-driven plan must agree with the sequential one.
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM recall.memories WHERE scopes && $1::text[]`, pool).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != len(want) {
			t.Fatalf("caller %v: filtered count %d, want %d", read, n, len(want))
		}
		_ = tx.Rollback(ctx)
	}
}

// TestWriteRule checks inserts, updates and deletes against the write rule computed in Go.
func TestWriteRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	r := rand.New(rand.NewPCG(3, 4))
	rows := seed(t, db, 300, r)

	for i := range 30 {
		read := randomSet(r, 2, 6)
		write := read[:1+r.IntN(len(read)-1)]

		// Inserts: allowed exactly when the new row's scopes are all write scopes.
		for j := range 10 {
			target := randomSet(r, 1, 3)
			tx := testdb.BeginAs(t, db.Runtime, read, write)
			_, err := tx.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ($1, $2, 'x')`,
				fmt.Sprintf("new-%d-%d", i, j), target)
			if want := writable(target, write); want != (err == nil) {
				t.Fatalf("read %v write %v: insert into %v: err %v, rule says allowed=%v", read, write, target, err, want)
			}
			if err != nil && sqlState(err) != "42501" {
				t.Fatalf("insert refused with %v, want SQLSTATE 42501", err)
			}
			_ = tx.Rollback(ctx)
		}

		// Updates and deletes touch exactly the visible rows the caller may write.
		var wantUpd []string
		for _, rw := range rows {
			if visible(rw.scopes, read) && writable(rw.scopes, write) {
				wantUpd = append(wantUpd, rw.ext)
			}
		}
		tx := testdb.BeginAs(t, db.Runtime, read, write)
		rs, err := tx.Query(ctx, `UPDATE recall.memories SET tags = '{touched}' RETURNING external_id`)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(rs, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, wantUpd) {
			t.Fatalf("read %v write %v: updated %d rows, rule allows %d", read, write, len(got), len(wantUpd))
		}
		tag, err := tx.Exec(ctx, `DELETE FROM recall.memories`)
		if err != nil {
			t.Fatal(err)
		}
		if tag.RowsAffected() != int64(len(wantUpd)) {
			t.Fatalf("deleted %d rows, rule allows %d", tag.RowsAffected(), len(wantUpd))
		}
		_ = tx.Rollback(ctx)
	}

	// Moving one's own row into a scope one cannot write is refused.
	tx := testdb.BeginAs(t, db.Runtime, []string{"acme", "beta"}, []string{"acme"})
	if _, err := tx.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ('mine', '{acme}', 'x')`); err != nil {
		t.Fatal(err)
	}
	_, err := tx.Exec(ctx, `UPDATE recall.memories SET scopes = '{acme,beta}' WHERE external_id = 'mine'`)
	if sqlState(err) != "42501" {
		t.Fatalf("widening a row's scopes: %v, want SQLSTATE 42501", err)
	}
}

// TestNoScopesSeesNothing: a transaction that never set scopes sees and writes nothing.
func TestNoScopesSeesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	seed(t, db, 50, rand.New(rand.NewPCG(5, 6)))

	conn, err := db.Runtime.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, table := range []string{"scopes", "sources", "memories", "entities", "mentions", "relations", "summary_coverage"} {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM recall.`+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("%s: %d rows visible without scopes", table, n)
		}
	}
	_, err = conn.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ('x', '{acme}', 'x')`)
	if sqlState(err) != "42501" {
		t.Fatalf("insert without scopes: %v, want SQLSTATE 42501", err)
	}
	// After a transaction with scopes ends, its SET LOCAL is gone: back to nothing.
	tx := testdb.BeginAs(t, db.Runtime, pool, nil)
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM recall.memories`).Scan(&n); err != nil || n != 50 {
		t.Fatalf("with every scope: %d rows (%v), want 50", n, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var after int
	if err := db.Runtime.QueryRow(ctx, `SELECT count(*) FROM recall.memories`).Scan(&after); err != nil || after != 0 {
		t.Fatalf("after the scoped transaction: %d rows (%v), want 0", after, err)
	}
}

// TestRuntimeCannotEscape: the runtime role cannot turn row security off, take another role,
// or change the policies.
func TestRuntimeCannotEscape(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	seed(t, db, 20, rand.New(rand.NewPCG(7, 8)))

	var super, bypass bool
	if err := db.Runtime.QueryRow(ctx, `SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user`).Scan(&super, &bypass); err != nil {
		t.Fatal(err)
	}
	if super || bypass {
		t.Fatalf("runtime role: superuser=%v bypassrls=%v", super, bypass)
	}

	cases := []struct {
		name  string
		sql   string
		state string
	}{
		{"row_security off", `SET LOCAL row_security = off; SELECT count(*) FROM recall.memories`, "42501"},
		{"set role owner", `SET LOCAL ROLE recall_owner`, "42501"},
		{"set role superuser", `SET LOCAL ROLE postgres`, "42501"},
		{"session authorization", `SET SESSION AUTHORIZATION recall_owner`, "42501"},
		{"disable rls", `ALTER TABLE recall.memories DISABLE ROW LEVEL SECURITY`, "42501"},
		{"drop policy", `DROP POLICY memories_read ON recall.memories`, "42501"},
		{"new policy", `CREATE POLICY leak ON recall.memories FOR SELECT USING (true)`, "42501"},
		{"redefine scope function", `CREATE OR REPLACE FUNCTION recall.read_scopes() RETURNS text[] LANGUAGE sql AS 'SELECT ''{acme}''::text[]'`, "42501"},
		{"grant self bypass", `ALTER ROLE recall_runtime BYPASSRLS`, "42501"},
		{"truncate", `TRUNCATE recall.memories`, "42501"},
	}
	for _, c := range cases {
		tx := testdb.BeginAs(t, db.Runtime, []string{"acme"}, nil)
		_, err := tx.Exec(ctx, c.sql)
		if sqlState(err) != c.state {
			t.Errorf("%s: %v, want SQLSTATE %s", c.name, err, c.state)
		}
		_ = tx.Rollback(ctx)
	}
	var n int
	if err := db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.memories`).Scan(&n); err != nil || n != 20 {
		t.Fatalf("after the attempts the owner sees %d rows (%v), want 20", n, err)
	}
}

// TestLinksNeedVisibleTargets: a link to an invisible row is refused exactly like a link to a
// row that does not exist (the same SQLSTATE, constraint and message), so writes cannot probe
// other scopes' ids.
func TestLinksNeedVisibleTargets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)

	var secretMem, secretEnt, secretSrc int64
	tx := testdb.BeginAs(t, db.Runtime, []string{"beta"}, []string{"beta"})
	if err := tx.QueryRow(ctx, `INSERT INTO recall.sources (external_id, scopes, title) VALUES ('s', '{beta}', 'Secret plan') RETURNING id`).Scan(&secretSrc); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ('m', '{beta}', 'secret') RETURNING id`).Scan(&secretMem); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `INSERT INTO recall.entities (external_id, scopes, name) VALUES ('e', '{beta}', 'Mallory') RETURNING id`).Scan(&secretEnt); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	var mem, ent, ent2 int64
	tx = testdb.BeginAs(t, db.Runtime, []string{"acme"}, []string{"acme"})
	if err := tx.QueryRow(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ('m', '{acme}', 'mine') RETURNING id`).Scan(&mem); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `INSERT INTO recall.entities (external_id, scopes, name) VALUES ('e', '{acme}', 'Alice') RETURNING id`).Scan(&ent); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `INSERT INTO recall.entities (external_id, scopes, name) VALUES ('e2', '{acme}', 'Bob') RETURNING id`).Scan(&ent2); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	missing := secretMem + secretEnt + secretSrc + 1000
	probes := []struct {
		name string
		sql  string
		args []any
	}{
		{"memory to invisible source", `INSERT INTO recall.memories (external_id, scopes, text, source_id) VALUES ('p', '{acme}', 'x', $1)`, []any{secretSrc}},
		{"memory to missing source", `INSERT INTO recall.memories (external_id, scopes, text, source_id) VALUES ('p', '{acme}', 'x', $1)`, []any{missing}},
		{"mention of invisible entity", `INSERT INTO recall.mentions (memory_id, entity_id, scopes) VALUES ($1, $2, '{acme}')`, []any{mem, secretEnt}},
		{"mention of missing entity", `INSERT INTO recall.mentions (memory_id, entity_id, scopes) VALUES ($1, $2, '{acme}')`, []any{mem, missing}},
		{"relation to invisible entity", `INSERT INTO recall.relations (scopes, src_id, dst_id) VALUES ('{acme}', $1, $2)`, []any{ent, secretEnt}},
		{"relation to missing entity", `INSERT INTO recall.relations (scopes, src_id, dst_id) VALUES ('{acme}', $1, $2)`, []any{ent, missing}},
		{"relation evidence invisible", `INSERT INTO recall.relations (scopes, src_id, dst_id, memory_id) VALUES ('{acme}', $1, $2, $3)`, []any{ent, ent2, secretMem}},
		{"relation evidence missing", `INSERT INTO recall.relations (scopes, src_id, dst_id, memory_id) VALUES ('{acme}', $1, $2, $3)`, []any{ent, ent2, missing}},
		{"coverage of invisible memory", `INSERT INTO recall.summary_coverage (summary_id, memory_id, scopes) VALUES ($1, $2, '{acme}')`, []any{mem, secretMem}},
		{"coverage of missing memory", `INSERT INTO recall.summary_coverage (summary_id, memory_id, scopes) VALUES ($1, $2, '{acme}')`, []any{mem, missing}},
	}
	// The foreign keys name the target with the link's own scope set ({acme}): a row of
	// another set is no more present than a missing one. Probes come in pairs (invisible,
	// missing; the last has no pair) that must fail alike.
	var last *pgconn.PgError
	for i, p := range probes {
		tx := testdb.BeginAs(t, db.Runtime, []string{"acme"}, []string{"acme"})
		_, err := tx.Exec(ctx, p.sql, p.args...)
		_ = tx.Rollback(ctx)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "23503" {
			t.Errorf("%s: %v, want a foreign key violation (23503)", p.name, err)
			continue
		}
		if i%2 == 1 && (pe.ConstraintName != last.ConstraintName || pe.Message != last.Message) {
			t.Errorf("%s: %s (%s), but %s: %s (%s)", p.name, pe.Message, pe.ConstraintName, probes[i-1].name, last.Message, last.ConstraintName)
		}
		last = pe
	}

	// Links between visible rows work.
	tx = testdb.BeginAs(t, db.Runtime, []string{"acme"}, []string{"acme"})
	if _, err := tx.Exec(ctx, `INSERT INTO recall.mentions (memory_id, entity_id, scopes) VALUES ($1, $2, '{acme}')`, mem, ent); err != nil {
		t.Fatalf("valid mention: %v", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO recall.relations (scopes, src_id, dst_id, memory_id) VALUES ('{acme}', $1, $2, $3)`, ent, ent2, mem); err != nil {
		t.Fatalf("valid relation: %v", err)
	}
}

// TestLinksStayInTheirScopeSet: a mention's scope set is its memory's and its entity's (the
// lanes read mentions without the memory on that promise): another set is refused, and so is
// moving a memory with links to another set, which would leave its mention pointing across.
func TestLinksStayInTheirScopeSet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	both := []string{"acme", "shared"}

	var mem, ent, sharedEnt int64
	tx := testdb.BeginAs(t, db.Runtime, both, both)
	if err := tx.QueryRow(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ('m', '{acme}', 'mine') RETURNING id`).Scan(&mem); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `INSERT INTO recall.entities (external_id, scopes, name) VALUES ('e', '{acme}', 'Alice') RETURNING id`).Scan(&ent); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `INSERT INTO recall.entities (external_id, scopes, name) VALUES ('e', '{acme,shared}', 'Alice') RETURNING id`).Scan(&sharedEnt); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scopes string
		entity int64
	}{{"{acme,shared}", ent}, {"{shared}", ent}, {"{acme}", sharedEnt}, {"{acme,shared}", sharedEnt}} {
		tx := testdb.BeginAs(t, db.Runtime, both, both)
		_, err := tx.Exec(ctx, `INSERT INTO recall.mentions (memory_id, entity_id, scopes) VALUES ($1, $2, $3)`, mem, c.entity, c.scopes)
		if st := sqlState(err); st != "23503" {
			t.Errorf("mention in %s of a memory in {acme} and entity %d: %v, want a foreign key violation (23503)", c.scopes, c.entity, err)
		}
		_ = tx.Rollback(ctx)
	}
	tx = testdb.BeginAs(t, db.Runtime, both, both)
	if _, err := tx.Exec(ctx, `INSERT INTO recall.mentions (memory_id, entity_id, scopes) VALUES ($1, $2, '{acme}')`, mem, ent); err != nil {
		t.Fatalf("mention in the memory's scopes: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := db.Owner.Exec(ctx, `UPDATE recall.memories SET scopes = '{acme,shared}' WHERE id = $1`, mem)
	if st := sqlState(err); st != "23503" {
		t.Fatalf("moving a memory whose mention's entity stays behind: %v, want a foreign key violation (23503)", err)
	}
	var got []string
	if err := db.Owner.QueryRow(ctx, `SELECT m.scopes FROM recall.mentions x JOIN recall.memories m ON m.id = x.memory_id WHERE x.memory_id = $1 AND x.scopes = m.scopes`, mem).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"acme"}) {
		t.Fatalf("after the refused move the memory and its mention are in %v, want {acme}", got)
	}
}

// TestExternalIDsPerScopeSet: the same external id in two scope sets is two rows; the same
// id in the same set conflicts (upsert target).
func TestExternalIDsPerScopeSet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := testdb.Tx(t, []string{"acme", "beta"}, []string{"acme", "beta"})
	for _, s := range []string{"{acme}", "{beta}", "{acme,beta}"} {
		if _, err := tx.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ('doc-1', $1, 'x')`, s); err != nil {
			t.Fatalf("insert doc-1 in %s: %v", s, err)
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ('doc-1', '{acme}', 'y')
		ON CONFLICT (scopes, external_id) DO UPDATE SET text = excluded.text`)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM recall.memories WHERE external_id = 'doc-1'`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d rows for doc-1 (%v), want 3", n, err)
	}
}

// TestScopeSetsAreNormalized: unsorted, duplicated, empty or malformed scope sets are refused.
func TestScopeSetsAreNormalized(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bad := []string{`{}`, `{beta,acme}`, `{acme,acme}`, `{"a b"}`, `{""}`, `{NULL}`, `{{acme},{beta}}`, "{" + strings.Repeat("x", 129) + "}"}
	for _, s := range bad {
		tx := testdb.Tx(t, []string{"acme", "beta"}, []string{"acme", "beta"})
		_, err := tx.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ('x', $1, 'x')`, s)
		if st := sqlState(err); st != "23514" && st != "42501" {
			t.Errorf("scopes %s: %v, want a check violation", s, err)
		}
	}
}

// TestRuntimeCannotHijackTheUpkeepsWorkTables: the lexical upkeep (recall.bm25_rebuild) runs
// with the owner's rights and keeps its work in temporary tables, whose schema the session's
// caller shares. A table of one of their names that the runtime role makes first, with a
// trigger, would be written by the owner and its trigger run as the owner: the write is
// refused instead (SQLSTATE 42501), the trigger never runs, and nothing is written.
func TestRuntimeCannotHijackTheUpkeepsWorkTables(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	for _, table := range []string{"bm25_delta", "bm25_docs_delta", "bm25_new", "bm25_ptf", "bm25_rows"} {
		tx := testdb.BeginAs(t, db.Runtime, []string{"acme"}, []string{"acme"})
		for _, stmt := range []string{
			`CREATE TEMP TABLE ` + table + ` (x int)`,
			`CREATE FUNCTION pg_temp.hijack() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'hijacked: ran as %', current_user; END $$`,
			`CREATE TRIGGER hijack BEFORE INSERT OR DELETE OR TRUNCATE ON pg_temp.` + table + ` FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.hijack()`,
			`GRANT ALL ON ` + table + ` TO PUBLIC`,
		} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				t.Fatalf("%s: %s: %v", table, stmt, err)
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ('m1', '{acme}', 'a note on cranes')`)
		if err != nil && strings.Contains(err.Error(), "hijacked") {
			t.Fatalf("%s: the caller's trigger ran inside the upkeep: %v", table, err)
		}
		if sqlState(err) != "42501" || !strings.Contains(err.Error(), "work tables are not its own") {
			t.Fatalf("%s: write beside the caller's table: %v, want SQLSTATE 42501 naming the work tables", table, err)
		}
		_ = tx.Rollback(ctx)
	}
	// Without such a table the same write goes through, and its postings are written.
	tx := testdb.BeginAs(t, db.Runtime, []string{"acme"}, []string{"acme"})
	if _, err := tx.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, text) VALUES ('m1', '{acme}', 'a note on cranes')`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.bm25_postings p JOIN recall.memories m ON m.id = p.memory_id WHERE m.external_id = 'm1'`).Scan(&n); err != nil || n == 0 {
		t.Fatalf("the note's postings: %d (%v), want some", n, err)
	}
}

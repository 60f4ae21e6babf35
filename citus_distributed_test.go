package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/migrations"
	"github.com/recall-engine/recall/sql"
)

// distributedTables are the tables the distribution step distributes by scope set.
var distributedTables = []string{"sources", "memories", "entities", "relations", "mentions", "summary_coverage",
	"memory_access", "bm25_postings", "bm25_docs", "bm25_terms", "bm25_corpus", "bm25_dirty", "title_trigrams", "entity_trigrams"}

// distributedPair is a Citus database, migrated and distributed (migrations.Distribute), and
// a single server's, migrated: the two sides of a comparison.
func distributedPair(t testing.TB) (cdb, sdb *testdb.DB) {
	t.Helper()
	return testdb.CitusDistributed(t), testdb.New(t)
}

// enginePair opens an engine on each of dbs (distributedPair's cluster and single server),
// with cfg's fields beside the pool and the built-in hashing embedder of 64 dimensions, which
// it returns too.
func enginePair(t testing.TB, cfg recall.Config, dbs ...*testdb.DB) ([]*recall.Engine, embed.Embedder) {
	t.Helper()
	emb, err := embed.NewHashing(64)
	if err != nil {
		t.Fatal(err)
	}
	var out []*recall.Engine
	for _, db := range dbs {
		c := cfg
		c.Pool, c.Embedder = db.Runtime, emb
		e, err := recall.New(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out, emb
}

// derivedRows reads, as the owner, everything the write path derives from memories, sources
// and entities, keyed by external ids so two databases compare: postings, per-set statistics,
// document lengths, mentions, relations and the trigram postings.
func derivedRows(t *testing.T, db *testdb.DB) map[string][]string {
	t.Helper()
	ctx := context.Background()
	queries := map[string]string{
		"postings": `SELECT m.external_id || ' ' || p.term || ' ' || p.tf || ' ' || p.ntf || ' ' || p.doc_len || ' ' || p.ndoc_len || ' ' || p.positioned || ' ' || round(p.impact::numeric, 9) || ' ' || p.scopes::text
			FROM recall.bm25_postings p JOIN recall.memories m ON m.id = p.memory_id AND m.scopes = p.scopes`,
		"terms":  `SELECT scopes::text || ' ' || term || ' ' || df || ' ' || cdf FROM recall.bm25_terms`,
		"corpus": `SELECT scopes::text || ' ' || docs || ' ' || total_len || ' ' || cdocs || ' ' || ctotal_len || ' ' || ctotal_nlen FROM recall.bm25_corpus`,
		"docs": `SELECT m.external_id || ' ' || d.doc_len || ' ' || d.ndoc_len || ' ' || d.positioned
			FROM recall.bm25_docs d JOIN recall.memories m ON m.id = d.memory_id AND m.scopes = d.scopes`,
		"mentions": `SELECT m.external_id || ' ' || e.external_id || ' ' || x.speaker FROM recall.mentions x
			JOIN recall.memories m ON m.id = x.memory_id AND m.scopes = x.scopes JOIN recall.entities e ON e.id = x.entity_id AND e.scopes = x.scopes`,
		"relations": `SELECT a.external_id || ' ' || r.predicate || ' ' || b.external_id || ' ' || r.weight FROM recall.relations r
			JOIN recall.entities a ON a.id = r.src_id AND a.scopes = r.scopes JOIN recall.entities b ON b.id = r.dst_id AND b.scopes = r.scopes`,
		"titles": `SELECT s.external_id || ' ' || t.scope || ' ' || t.trigram FROM recall.title_trigrams t JOIN recall.sources s ON s.id = t.source_id AND s.scopes = t.scopes`,
		"names":  `SELECT e.external_id || ' ' || t.scope || ' ' || t.trigram FROM recall.entity_trigrams t JOIN recall.entities e ON e.id = t.entity_id AND e.scopes = t.scopes`,
		"dirty":  `SELECT memory_id::text FROM recall.bm25_dirty`,
	}
	out := map[string][]string{}
	for name, q := range queries {
		rows, err := db.Owner.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		slices.Sort(got)
		out[name] = got
	}
	return out
}

// TestCitusDistributed: the distribution step distributes every scoped table by its scope
// set, co-located, in one step that a second run leaves alone; writes, rewrites and deletes
// then derive on the cluster, by the row trigger and the flush, exactly the rows a single
// server derives by its statement triggers (BM25 postings and statistics, document lengths,
// trigram postings), with nothing left noted; and random readers over overlapping scope sets
// see through the policies' Citus form exactly the rows the rule in Go gives.
func TestCitusDistributed(t *testing.T) {
	t.Parallel()
	cdb, sdb := distributedPair(t)
	ctx := context.Background()
	owner := cdb.OwnerSQL()
	defer owner.Close() //nolint:errcheck // closing a handle
	if err := migrations.Distribute(ctx, owner); err != nil {
		t.Fatalf("a second run: %v", err)
	}
	var colocations, kinds []string
	for _, tb := range distributedTables {
		var method, column, coloc string
		if err := cdb.Owner.QueryRow(ctx, `SELECT p.partmethod::text, column_to_column_name(p.logicalrelid, p.partkey), p.colocationid::text
			FROM pg_dist_partition p WHERE p.logicalrelid = ('recall.' || $1)::regclass`, tb).Scan(&method, &column, &coloc); err != nil {
			t.Fatalf("%s is not distributed: %v", tb, err)
		}
		if method != "h" || column != "scopes" {
			t.Errorf("%s: distributed by %s (%s), want scopes (hash)", tb, column, method)
		}
		colocations = append(colocations, coloc)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(colocations)))) != 1 {
		t.Errorf("colocation groups %v: want one", colocations)
	}
	if err := cdb.Owner.QueryRow(ctx, `SELECT array_agg(logicalrelid::text ORDER BY 1) FROM pg_dist_partition WHERE partmethod = 'n'`).Scan(&kinds); err != nil || !slices.Equal(kinds, []string{"recall.scopes"}) {
		t.Errorf("reference tables %v (%v), want [recall.scopes]", kinds, err)
	}

	// The same rows, written as the owner on both servers (the engine's own write statements
	// do not run on distributed tables yet: docs/SCALING.md), in transactions that end, on
	// Citus, with the flush the engine's writer calls.
	r := rand.New(rand.NewPCG(11, 34))
	all := []string{"a", "b", "c", "d"}
	subset := func(most int) []string { return scopeSubset(r, all, most) }
	names := []string{"Alice Martin", "Bob Stone", "Carol Diaz", "Lisbon", "Tokyo"}
	words := strings.Fields("ferry crane harbor storm budget inspection schedule pier moved visited fixed delayed")
	both := func(what string, sql string, args ...any) {
		t.Helper()
		for _, db := range []*testdb.DB{cdb, sdb} {
			err := pgx.BeginFunc(ctx, db.Owner, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, sql, args...); err != nil {
					return err
				}
				if db == cdb {
					_, err := tx.Exec(ctx, `SELECT recall.bm25_flush()`)
					return err
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
	}
	// sourceID is set's source's id on each server: the same, as both wrote the same rows in
	// the same order (checked).
	sourceID := func(set int, sc []string) int64 {
		var ids [2]int64
		for i, db := range []*testdb.DB{cdb, sdb} {
			if err := db.Owner.QueryRow(ctx, `SELECT id FROM recall.sources WHERE scopes = $1 AND external_id = $2`, sc, fmt.Sprint("s", set)).Scan(&ids[i]); err != nil {
				t.Fatal(err)
			}
		}
		if ids[0] != ids[1] {
			t.Fatalf("set %d: source %d on Citus, %d on one server", set, ids[0], ids[1])
		}
		return ids[0]
	}
	type row struct {
		id     string
		scopes []string
	}
	var written []row
	sets := map[int][]string{}
	for set := range 8 {
		sc := subset(2)
		sets[set] = sc
		both(fmt.Sprintf("source %d", set), `INSERT INTO recall.sources (external_id, scopes, title) VALUES ($3, $1, $2)`,
			sc, fmt.Sprintf("Harbor log %d of %s", set, names[set%5]), fmt.Sprint("s", set))
		both(fmt.Sprintf("entity %d", set), `INSERT INTO recall.entities (external_id, scopes, name) VALUES ($2 || 'alice', $1, 'Alice Martin'), ($2 || 'lisbon', $1, 'Lisbon')`, sc, fmt.Sprint(set))
		var ids, texts []string
		var places []int
		for m := range 10 {
			ids = append(ids, fmt.Sprintf("set%d-m%d", set, m))
			places = append(places, m+1)
			texts = append(texts, fmt.Sprintf("%s %s the %s near %s.", names[r.IntN(len(names))], words[r.IntN(len(words))], words[r.IntN(len(words))], names[r.IntN(len(names))]))
		}
		ids, texts, places = append(ids, fmt.Sprintf("set%d-note", set)), append(texts, "A note without a place about the "+words[set]), append(places, 0)
		for _, id := range ids {
			written = append(written, row{id, sc})
		}
		both(fmt.Sprintf("memories %d", set), `INSERT INTO recall.memories (external_id, scopes, source_id, position, text)
			SELECT x.id, $1, CASE WHEN x.place > 0 THEN $5::bigint END, nullif(x.place, 0), x.text
			FROM unnest($2::text[], $3::int[], $4::text[]) AS x(id, place, text)`, sc, ids, places, texts, sourceID(set, sc))
	}
	compare := func(stage string) {
		t.Helper()
		got, want := derivedRows(t, cdb), derivedRows(t, sdb)
		for name, w := range want {
			if len(w) == 0 && name != "dirty" && name != "mentions" && name != "relations" {
				t.Fatalf("%s: the single server derived no %s", stage, name)
			}
			if !slices.Equal(got[name], w) {
				t.Fatalf("%s: %s differ: Citus %d rows, single server %d\nCitus: %.400v\nsingle: %.400v", stage, name, len(got[name]), len(w), got[name], w)
			}
		}
	}
	compare("after the writes")

	// A rewritten text in the middle of a conversation (its neighbours' postings change), a
	// renamed source (its memories' lexemes change), a renamed entity, and deletes.
	both("rewrite", `UPDATE recall.memories SET text = 'Bob Stone repaired the harbor crane after the storm.'
		WHERE scopes = $1 AND external_id = 'set2-m4'`, sets[2])
	both("rename", `UPDATE recall.sources SET title = 'Harbor log, renamed' WHERE scopes = $1 AND external_id = 's5'`, sets[5])
	both("rename entity", `UPDATE recall.entities SET name = 'Alice M. Martin' WHERE scopes = $1 AND external_id = '6alice'`, sets[6])
	compare("after the rewrites")
	both("delete", `DELETE FROM recall.memories WHERE scopes = $1 AND external_id IN ('set3-m0', 'set3-m5', 'set3-note')`, sets[3])
	written = slices.DeleteFunc(written, func(w row) bool {
		return slices.Equal(w.scopes, sets[3]) && (w.id == "set3-m0" || w.id == "set3-m5" || w.id == "set3-note")
	})
	compare("after deletes")

	// Migration 00014 again, as on a database written before it: on the cluster too it notes
	// the short memories with a place (most texts here are six lexemes), Up's flush rebuilds
	// them and leaves nothing noted, and both servers still derive the same rows.
	for _, db := range []*testdb.DB{cdb, sdb} {
		upFrom(t, db, 14)
		var noted int
		if err := db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.bm25_dirty`).Scan(&noted); err != nil || noted != 0 {
			t.Fatalf("after Up: %d memories still noted (%v)", noted, err)
		}
	}
	compare("after migration 00014 again")

	// The policies' Citus form: each reader sees exactly the rows whose scope set meets its
	// read scopes.
	for i := range 12 {
		read := subset(3)
		var want []string
		for _, w := range written {
			if slices.ContainsFunc(w.scopes, func(s string) bool { return slices.Contains(read, s) }) {
				want = append(want, w.id)
			}
		}
		slices.Sort(want)
		var got []string
		err := pgx.BeginFunc(ctx, cdb.Runtime, func(tx pgx.Tx) error {
			if err := scope.Apply(ctx, tx, read, nil); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, `SELECT external_id FROM recall.memories ORDER BY 1`)
			if err != nil {
				return err
			}
			got, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) && (len(got) != 0 || len(want) != 0) {
			t.Fatalf("reader %d of %v: sees %d memories, the rule %d:\n%v\n%v", i, read, len(got), len(want), got, want)
		}
	}
}

// TestCitusFunctionsAgain: the function files applied again on the distributed schema (what
// `recall migrate up` does after an upgrade changes them: every file is owed here) succeed,
// and the engine then writes and recalls there as before.
func TestCitusFunctionsAgain(t *testing.T) {
	t.Parallel()
	cdb, _ := distributedPair(t)
	ctx := context.Background()
	applyFunctionsAgain(t, cdb)
	engines, _ := enginePair(t, recall.Config{}, cdb)
	user := recall.User{ID: "w", Read: []string{"t"}, Write: []string{"t"}}
	b := recall.Batch{Scopes: []string{"t"}, Sources: []recall.Source{{ID: "log", Title: "Harbor log"}},
		Memories: []recall.Memory{{ID: "m1", Source: "log", Position: 1, Text: "Alice Martin fixed the harbor crane."},
			{ID: "m2", Source: "log", Position: 2, Text: "The ferry was late again."}}}
	if _, err := engines[0].Write(ctx, user, b); err != nil {
		t.Fatal(err)
	}
	p, err := engines[0].Recall(ctx, user, "Who fixed the crane in the harbor log?", 300, nil)
	if err != nil || len(p.Items) == 0 || p.Items[0].ExternalID != "m1" {
		t.Fatalf("recall after the function files: %v, %+v", err, p)
	}
}

// applyFunctionsAgain applies every function file again to db, as `recall migrate up` does
// after an upgrade changes them all, and checks that every one was.
func applyFunctionsAgain(t *testing.T, db *testdb.DB) {
	t.Helper()
	owner := db.OwnerSQL()
	defer owner.Close() //nolint:errcheck // closing a handle
	ctx := context.Background()
	if _, err := owner.ExecContext(ctx, "UPDATE recall.function_files SET sha256 = 'owed'"); err != nil {
		t.Fatal(err)
	}
	done, err := migrations.ApplyFunctions(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != len(sqltext.FunctionFiles) {
		t.Fatalf("applied %d function files of %d", len(done), len(sqltext.FunctionFiles))
	}
}

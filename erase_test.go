package recall_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
)

// notOfScopeSets are the tables of schema recall that hold no scope set's rows: the keys (a
// key names scopes, it holds no memory of them) and the function files applied. A table
// added to the schema is in neither list until someone says which it is: TestErase fails.
var notOfScopeSets = []string{"api_keys", "function_files"}

// fillSet writes into scope set scopes, as user u, a chat of three turns with a titled
// source, notes that name entities with a relation, a summary of the chat, and recalls that
// count accesses.
func fillSet(t *testing.T, e *recall.Engine, u recall.User, scopes []string, tag string) {
	t.Helper()
	ctx := context.Background()
	b := recall.Batch{Scopes: scopes,
		Sources:   []recall.Source{{ID: "chat-" + tag, Title: "Crane planning " + tag}},
		Entities:  []recall.Entity{{ID: "alice", Name: "Alice Martin"}, {ID: "crane", Name: "harbor crane"}},
		Relations: []recall.Relation{{From: "alice", To: "crane", Predicate: "fixed", Memory: "n1-" + tag}},
		Memories: []recall.Memory{
			{ID: "t1-" + tag, Source: "chat-" + tag, Position: 1, Speaker: "Ana", Text: "Who will fix the harbor crane before the storm?"},
			{ID: "t2-" + tag, Source: "chat-" + tag, Position: 2, Speaker: "Bo", Text: "Alice Martin said she fixes the crane on Tuesday."},
			{ID: "t3-" + tag, Source: "chat-" + tag, Position: 3, Speaker: "Ana", Text: "Great, then the ferry keeps its schedule."},
			{ID: "n1-" + tag, Text: "Alice Martin fixed the harbor crane on Tuesday " + tag + ".", Entities: []string{"alice", "crane"}},
			{ID: "n2-" + tag, Text: "The ferry to the islands leaves at nine " + tag + ".", Tags: []string{"ferry"}},
		}}
	if _, err := e.Write(ctx, u, b); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Summarize(ctx, u, recall.SummarizeOptions{Scopes: scopes}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Who fixed the harbor crane?", "When does the ferry leave?"} {
		if _, err := e.Recall(ctx, u, q, 500, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestErase: Erase removes every row of one scope set from every table of the schema that
// holds scope sets (listed here from the catalog, not from Erase's own list), returns their
// counts as its receipt (a dry run the same counts and nothing removed), leaves every row of
// every other set as it was, statistics included (a set that shares a scope too), and is
// refused, with nothing removed, to a user who does not write the whole set.
func TestErase(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	both := recall.User{ID: "both", Read: []string{"other", "team"}, Write: []string{"other", "team"}}
	fillSet(t, e, member, []string{"team"}, "a")
	fillSet(t, e, both, []string{"other"}, "b")
	fillSet(t, e, both, []string{"other", "team"}, "c")
	// The schema's tables: each has a scopes column or is named in notOfScopeSets.
	var tables []string
	rows, err := db.Owner.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'recall' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
		  AND EXISTS (SELECT 1 FROM information_schema.columns k WHERE k.table_schema = 'recall' AND k.table_name = c.relname AND k.column_name = 'scopes')
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var others []string
	if err := db.Owner.QueryRow(ctx, `SELECT coalesce(array_agg(c.relname::text ORDER BY c.relname), '{}') FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'recall' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND NOT (c.relname = ANY($1))`, tables).Scan(&others); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(others, notOfScopeSets) {
		t.Fatalf("tables of schema recall without a scopes column: %v, want %v (a new table: give it scopes, or add it to notOfScopeSets)", others, notOfScopeSets)
	}
	team := []string{"team"}
	counts := func() map[string]int64 {
		out := map[string]int64{}
		for _, tb := range tables {
			out[tb] = int64(count(t, db, fmt.Sprintf("SELECT count(*) FROM %s WHERE scopes = $1", pgx.Identifier{"recall", tb}.Sanitize()), team))
		}
		return out
	}
	rest := func() map[string][]string {
		out := map[string][]string{}
		for _, tb := range tables {
			rows, err := db.Owner.Query(ctx, fmt.Sprintf("SELECT r::text FROM %s r WHERE scopes <> $1 ORDER BY 1", pgx.Identifier{"recall", tb}.Sanitize()), team)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				out[tb] = append(out[tb], s)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	before, beforeRest := counts(), rest()
	for _, tb := range []string{"memories", "sources", "entities", "mentions", "relations", "summary_coverage", "memory_access", "bm25_postings", "bm25_terms", "bm25_corpus", "title_trigrams", "entity_trigrams"} {
		if before[tb] == 0 {
			t.Fatalf("the fixture has no row of {team} in %s: the test would prove nothing there (%v)", tb, before)
		}
	}
	// Refused to a user who reads the set but does not write it, and to one who writes one
	// scope of a set of two.
	reader := recall.User{ID: "r", Read: team, Write: []string{"elsewhere"}}
	if _, err := e.Erase(ctx, reader, team, false); err == nil {
		t.Fatal("a user who does not write {team} erased it")
	}
	var we *recall.WriteError
	if _, err := e.Erase(ctx, member, []string{"other", "team"}, false); !errors.As(err, &we) || we.Field != "scopes" {
		t.Fatalf("member erasing {other, team}: %v, want a WriteError on scopes", err)
	}
	// Dry: the counts, nothing removed.
	dry, err := e.Erase(ctx, member, team, true)
	if err != nil || !dry.DryRun || !maps.Equal(dry.Tables, before) {
		t.Fatalf("dry run: %+v %v, want %v", dry, err, before)
	}
	if got := counts(); !maps.Equal(got, before) {
		t.Fatalf("after refusals and a dry run: %v, want %v", got, before)
	}
	r, err := e.Erase(ctx, member, team, false)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(r.Tables, before) || r.DryRun || r.At.IsZero() || !slices.Equal(r.Scopes, team) {
		t.Fatalf("receipt %+v, want the tables %v", r, before)
	}
	for tb, n := range counts() {
		if n != 0 {
			t.Errorf("%d rows of {team} left in recall.%s", n, tb)
		}
	}
	after := rest()
	for _, tb := range tables {
		if !slices.Equal(after[tb], beforeRest[tb]) {
			t.Errorf("recall.%s: the other sets' rows changed (%d before, %d after)", tb, len(beforeRest[tb]), len(after[tb]))
		}
	}
	// member reads scope team: the set {other, team} is still there to read, {team} is not.
	p, err := e.Recall(ctx, member, "Who fixed the harbor crane?", 500, nil)
	if err != nil || len(p.Items) == 0 {
		t.Fatalf("a recall after the erase: %v %v", p.Items, err)
	}
	for _, it := range p.Items {
		if strings.HasSuffix(it.ExternalID, "-a") {
			t.Errorf("a recall after the erase packed %s of the erased set", it.ExternalID)
		}
	}
	p, err = e.Recall(ctx, both, "Who fixed the harbor crane?", 500, nil)
	if err != nil || len(p.Items) == 0 {
		t.Fatalf("a recall of the other sets after the erase: %v %v", p.Items, err)
	}
	again, err := e.Erase(ctx, member, team, false)
	if err != nil || again.Total() != 0 {
		t.Fatalf("erasing again: %+v %v", again, err)
	}
}

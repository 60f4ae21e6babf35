package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPruneCommand: recall prune deletes the scope's memories whose expires_at has passed
// (native records with lenient times), keeps the others and another scope's, says how many,
// and refuses a time it cannot read.
func TestPruneCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	lines := `{"type": "memory", "id": "old", "text": "The spring timetable.", "expires_at": "2020-01-01"}
{"type": "memory", "id": "soon", "text": "The summer timetable.", "expires_at": "2020-06-01"}
{"type": "memory", "id": "kept", "text": "The harbour map."}
`
	for _, scope := range []string{"team", "other"} {
		if code := c.run("ingest", writeFile(t, "notes.jsonl", lines), "--format", "native", "--scope", scope); code != 0 {
			t.Fatalf("ingest %s: exit %d: %s", scope, code, c.err.String())
		}
	}
	if code := c.run("prune", "--scope", "team", "--at", "2020-03-01"); code != 0 || !strings.Contains(c.out.String(), "scope set team: 1 expired memories deleted") {
		t.Fatalf("prune at 2020-03-01: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if code := c.run("prune", "--scope", "team"); code != 0 || !strings.Contains(c.out.String(), "scope set team: 1 expired memories deleted") {
		t.Fatalf("prune now: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{team}' AND external_id = 'kept'`); n != 1 {
		t.Fatalf("the memory without expiry: %d rows", n)
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{team}'`); n != 1 {
		t.Fatalf("%d memories left in team, want 1", n)
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{other}'`); n != 3 {
		t.Fatalf("%d memories left in other, want 3", n)
	}
	if code := c.run("prune", "--scope", "team", "--at", "next tuesday"); code != 2 || !strings.Contains(c.err.String(), "--at") {
		t.Fatalf("bad --at: exit %d: %s", code, c.err.String())
	}
}

// TestQueryAsOf: recall query answers with what held at --as-of: the superseding memory by
// default, the superseded one before the new one held; a time it cannot read is refused.
func TestQueryAsOf(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	lines := `{"type": "memory", "id": "h1", "text": "Ana lives in Lisbon.", "valid_from": "2019-01-01"}
{"type": "memory", "id": "h2", "text": "Ana lives in Berlin now.", "valid_from": "2024-01-01", "supersedes": ["h1"]}
`
	if code := c.run("ingest", writeFile(t, "homes.jsonl", lines), "--format", "native", "--scope", "team"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, c.err.String())
	}
	for _, q := range []struct {
		args        []string
		want, never string
	}{{nil, "Berlin", "Lisbon"}, {[]string{"--as-of", "2022-06-01"}, "Lisbon", "Berlin"}} {
		if code := c.run(append([]string{"query", "Where does Ana live?", "--scope", "team"}, q.args...)...); code != 0 ||
			!strings.Contains(c.out.String(), q.want) || strings.Contains(c.out.String(), q.never) {
			t.Errorf("query %v: exit %d, want %s and never %s: %s%s", q.args, code, q.want, q.never, c.out.String(), c.err.String())
		}
	}
	if code := c.run("query", "Where does Ana live?", "--scope", "team", "--as-of", "last spring"); code != 2 || !strings.Contains(c.err.String(), "--as-of") {
		t.Fatalf("bad --as-of: exit %d: %s", code, c.err.String())
	}
}

// TestSupersedeCommand: recall supersede marks stored memories replaced by a newer one, from
// --at; query answers with the newer one, and with the older as of before --at; an unknown
// id is a bad flag (exit 2) naming it, a missing argument a usage error, and a time it cannot
// read is refused.
func TestSupersedeCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	lines := `{"type": "memory", "id": "job-1", "text": "Ana works at the harbour office."}
{"type": "memory", "id": "job-2", "text": "Ana works at the ferry company now."}
`
	if code := c.run("ingest", writeFile(t, "jobs.jsonl", lines), "--format", "native", "--scope", "team"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, c.err.String())
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"supersede", "--scope", "team", "job-2", "job-9"}, "job-9"},
		{[]string{"supersede", "--scope", "team", "job-2"}, "usage"},
		{[]string{"supersede", "--scope", "team", "--at", "soon", "job-2", "job-1"}, "--at"},
	} {
		if code := c.run(bad.args...); code != 2 || !strings.Contains(c.err.String(), bad.want) {
			t.Errorf("%v: exit %d: %s", bad.args, code, c.err.String())
		}
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE superseded_by IS NOT NULL`); n != 0 {
		t.Fatalf("refused commands marked %d memories", n)
	}
	if code := c.run("supersede", "--scope", "team", "--at", "2023-05-01", "job-2", "job-1"); code != 0 ||
		!strings.Contains(c.out.String(), "scope set team: 1 memories superseded by job-2") {
		t.Fatalf("supersede: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	for _, q := range []struct {
		args        []string
		want, never string
	}{{nil, "ferry", "harbour"}, {[]string{"--as-of", "2023-01-01"}, "harbour", ""},
		{[]string{"--mark-stale"}, "no longer holds: superseded by job-2 on 2023-05-01", ""}} {
		if code := c.run(append([]string{"query", "Where does Ana work?", "--scope", "team"}, q.args...)...); code != 0 ||
			!strings.Contains(c.out.String(), q.want) || (q.never != "" && strings.Contains(c.out.String(), q.never)) {
			t.Errorf("query %v: exit %d, want %s and never %q: %s%s", q.args, code, q.want, q.never, c.out.String(), c.err.String())
		}
	}
}

// TestIngestDuplicates: recall ingest --duplicates skip leaves out a note that restates one
// already stored (case and punctuation aside), says how many, and refuses an unknown policy.
func TestIngestDuplicates(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	first := `{"type": "memory", "id": "d1", "text": "The ferry leaves at nine."}` + "\n"
	again := `{"type": "memory", "id": "d2", "text": "the FERRY leaves at nine!"}
{"type": "memory", "id": "d3", "text": "The ferry leaves at ten."}
`
	if code := c.run("ingest", writeFile(t, "a.jsonl", first), "--format", "native", "--scope", "team"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, c.err.String())
	}
	if code := c.run("ingest", writeFile(t, "b.jsonl", again), "--format", "native", "--scope", "team", "--duplicates", "skip"); code != 0 ||
		!strings.Contains(c.out.String()+c.err.String(), "1 duplicates") {
		t.Fatalf("ingest --duplicates skip: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{team}'`); n != 2 {
		t.Fatalf("%d memories stored, want 2 (d1, d3)", n)
	}
	if code := c.run("ingest", writeFile(t, "c.jsonl", again), "--format", "native", "--scope", "team", "--duplicates", "merge"); code == 0 ||
		!strings.Contains(c.err.String(), "duplicates") {
		t.Fatalf("--duplicates merge: exit %d: %s", code, c.err.String())
	}
	// --duplicate-match words: articles and fillers aside, a restatement; another hour is not.
	c.out.Reset()
	near := `{"type": "memory", "id": "d4", "text": "Ferry really leaves at nine"}
{"type": "memory", "id": "d5", "text": "The ferry leaves at eleven."}
`
	if code := c.run("ingest", writeFile(t, "d.jsonl", near), "--format", "native", "--scope", "team", "--duplicates", "skip", "--duplicate-match", "words"); code != 0 ||
		!strings.Contains(c.out.String()+c.err.String(), "1 duplicates") {
		t.Fatalf("ingest --duplicate-match words: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{team}' AND external_id IN ('d1', 'd5') AND (external_id = 'd5' OR (metadata->>'restatements')::int = 2)`); n != 2 {
		t.Fatalf("d5 stored and d1 restated twice: %d of 2", n)
	}
	if code := c.run("ingest", writeFile(t, "e.jsonl", near), "--format", "native", "--scope", "team", "--duplicates", "skip", "--duplicate-match", "fuzzy"); code == 0 ||
		!strings.Contains(c.err.String(), "duplicate_match") {
		t.Fatalf("--duplicate-match fuzzy: exit %d: %s", code, c.err.String())
	}
}

// TestIngestFunctional: recall ingest --functional lives_in: a later relation of the
// subject's supersedes the earlier one's evidence, and query answers with the later.
func TestIngestFunctional(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	lines := `{"type": "entity", "id": "ana", "name": "Ana Lima"}
{"type": "entity", "id": "lisbon", "name": "Lisbon"}
{"type": "entity", "id": "berlin", "name": "Berlin"}
{"type": "memory", "id": "h1", "text": "Ana Lima lives in Lisbon.", "occurred_start": "2022-01-01"}
{"type": "relation", "from": "ana", "to": "lisbon", "predicate": "lives_in", "memory": "h1"}
`
	later := `{"type": "entity", "id": "ana", "name": "Ana Lima"}
{"type": "entity", "id": "berlin", "name": "Berlin"}
{"type": "memory", "id": "h2", "text": "Ana Lima lives in Berlin now.", "occurred_start": "2024-01-01"}
{"type": "relation", "from": "ana", "to": "berlin", "predicate": "lives_in", "memory": "h2"}
`
	for i, f := range []string{lines, later} {
		if code := c.run("ingest", writeFile(t, fmt.Sprintf("h%d.jsonl", i), f), "--format", "native", "--scope", "team", "--functional", "lives_in, works_at"); code != 0 {
			t.Fatalf("ingest %d: exit %d: %s", i, code, c.err.String())
		}
	}
	if n := c.count(`SELECT count(*) FROM recall.memories m JOIN recall.memories b ON b.id = m.superseded_by WHERE m.external_id = 'h1' AND b.external_id = 'h2'`); n != 1 {
		t.Fatal("h1 is not superseded by h2")
	}
	if code := c.run("query", "Where does Ana Lima live?", "--scope", "team"); code != 0 || !strings.Contains(c.out.String(), "Berlin") || strings.Contains(c.out.String(), "Lisbon.") {
		t.Fatalf("query: exit %d: %s", code, c.out.String())
	}
}

// TestConsolidateCommand: recall consolidate refuses to run without a chat model (nothing is
// guessed), and with one (a server on loopback answering "1 -> 2") marks the older statement
// about an entity superseded by the newer and says so.
func TestConsolidateCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	lines := `{"type": "entity", "id": "ana", "name": "Ana Lima", "kind": "person"}
{"type": "memory", "id": "k1", "text": "Ana Lima works at the harbour.", "occurred_start": "2022-01-01", "entities": ["ana"]}
{"type": "memory", "id": "k2", "text": "Ana Lima works at the ferry company now.", "occurred_start": "2024-01-01", "entities": ["ana"]}
`
	if code := c.run("ingest", writeFile(t, "k.jsonl", lines), "--format", "native", "--scope", "team", "--no-extract"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, c.err.String())
	}
	if code := c.run("consolidate", "--scope", "team"); code != 2 || !strings.Contains(c.err.String(), "nothing is guessed") {
		t.Fatalf("without a model: exit %d: %s", code, c.err.String())
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"choices": [{"message": {"role": "assistant", "content": "1 -> 2"}}]}`)
	}))
	defer srv.Close()
	if code := c.run("consolidate", "--scope", "team", "--chat-url", srv.URL+"/v1", "--chat-model", "m"); code != 0 ||
		!strings.Contains(c.out.String(), "Ana Lima: k1 superseded by k2") || !strings.Contains(c.out.String(), "superseded 1 memories") {
		t.Fatalf("consolidate: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if n := c.count(`SELECT count(*) FROM recall.memories m JOIN recall.memories b ON b.id = m.superseded_by WHERE m.external_id = 'k1' AND b.external_id = 'k2'`); n != 1 {
		t.Fatal("k1 is not superseded by k2")
	}
}

// TestEraseCommand: recall erase wants --yes or --dry-run; the dry run counts and removes
// nothing; --yes removes every row of the scope set and prints the receipt, and another
// scope's memories stay.
func TestEraseCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	lines := `{"speaker": "Ana", "text": "The crane was fixed on Tuesday.", "conversation": "c1", "date": "2024-03-01"}
{"speaker": "Bo", "text": "Then the ferry keeps its schedule.", "conversation": "c1", "date": "2024-03-01"}
`
	for _, scope := range []string{"team", "other"} {
		if code := c.run("ingest", writeFile(t, "chat.jsonl", lines), "--scope", scope); code != 0 {
			t.Fatalf("ingest %s: exit %d: %s", scope, code, c.err.String())
		}
	}
	if code := c.run("erase", "--scope", "team"); code != 2 || !strings.Contains(c.err.String(), "--yes") {
		t.Fatalf("erase without --yes: exit %d: %s", code, c.err.String())
	}
	if code := c.run("erase", "--scope", "team", "--dry-run"); code != 0 || !strings.Contains(c.out.String(), "would erase (dry run)") ||
		!strings.Contains(c.out.String(), "memories           2") {
		t.Fatalf("dry run: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{team}'`); n != 2 {
		t.Fatalf("%d memories in team after a dry run, want 2", n)
	}
	if code := c.run("erase", "--scope", "team", "--yes", "--json"); code != 0 || !strings.Contains(c.out.String(), `"memories": 2`) ||
		!strings.Contains(c.out.String(), `"sources": 1`) {
		t.Fatalf("erase: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	for _, table := range []string{"memories", "sources", "bm25_postings", "bm25_corpus", "title_trigrams"} {
		if n := c.count(fmt.Sprintf(`SELECT count(*) FROM recall.%s WHERE scopes = '{team}'`, table)); n != 0 {
			t.Errorf("%d rows of team left in %s", n, table)
		}
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{other}'`); n != 2 {
		t.Fatalf("%d memories left in other, want 2", n)
	}
}

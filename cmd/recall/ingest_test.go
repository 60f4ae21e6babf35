package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/records"

	"github.com/recall-engine/recall/internal/testkit/testdb"
)

type harness struct {
	t        *testing.T
	db       *testdb.DB
	out, err bytes.Buffer
}

func newCLI(t *testing.T) *harness {
	return &harness{t: t, db: testdb.New(t)}
}

func (c *harness) run(args ...string) int {
	c.out.Reset()
	c.err.Reset()
	m := &Main{cli.Env{Stdout: &c.out, Stderr: &c.err, Getenv: func(k string) string {
		if k == "RECALL_DATABASE_URL" {
			return c.db.URL("recall_owner")
		}
		return ""
	}}}
	return m.Run(context.Background(), args)
}

func (c *harness) count(sql string) int {
	c.t.Helper()
	var n int
	if err := c.db.Owner.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		c.t.Fatal(err)
	}
	return n
}

func writeFile(t *testing.T, name, body string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestIngestFormats(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	native := writeFile(t, "native.jsonl", `{"type": "entity", "id": "ana", "name": "Ana Lima", "aliases": ["Ana"]}
{"type": "source", "id": "s1", "title": "Field diary"}
{"type": "memory", "id": "m1", "source": "s1", "text": "Ana Lima sailed to Gull Island.", "occurred_start": "2024-05-01", "tags": ["trip"]}

{"type": "memory", "id": "m2", "text": "The ferry was late.", "entities": ["ana"]}
{"type": "relation", "from": "ana", "to": "auto:gull island", "predicate": "visited"}
`)
	beir := writeFile(t, "corpus.jsonl", `{"_id": "d1", "title": "Aspirin and the heart", "text": "Aspirin lowers the risk of heart attacks.", "metadata": {}}
{"_id": "d2", "title": "", "text": "Statins lower cholesterol."}
`)
	turns := writeFile(t, "chat.jsonl", `{"conversation": "c1", "speaker": "Ana Lima", "text": "I loved the island.", "date": "2024-05-02 18:30"}
{"conversation": "c1", "speaker": "Bo", "text": "Next time take the early ferry.", "timestamp": "2024-05-02T18:31:00Z"}
`)
	if code := c.run("ingest", native, beir, turns, "--scope", "team"); code != 0 {
		t.Fatalf("exit %d: %s", code, c.err.String())
	}
	if !strings.Contains(c.out.String(), "ingested 3 files, 9 lines") || !strings.Contains(c.out.String(), "6 memories") {
		t.Fatalf("summary %q", c.out.String())
	}
	for sql, want := range map[string]int{
		`SELECT count(*) FROM recall.memories WHERE scopes = '{team}'`:                                                    6,
		`SELECT count(*) FROM recall.sources WHERE external_id IN ('s1', 'd1', 'c1')`:                                     3,
		`SELECT count(*) FROM recall.memories WHERE external_id = 'c1:1' AND kind = 'experience'`:                         1,
		`SELECT count(*) FROM recall.memories WHERE occurred_start = '2024-05-02 18:31:00+00'`:                            1,
		`SELECT count(*) FROM recall.relations WHERE predicate = 'visited'`:                                               1,
		`SELECT count(*) FROM recall.mentions x JOIN recall.entities e ON e.id = x.entity_id WHERE e.external_id = 'ana'`: 3,
	} {
		if n := c.count(sql); n != want {
			t.Fatalf("%s: %d, want %d", sql, n, want)
		}
	}
	// The same files again: every id upserts, nothing doubles.
	if code := c.run("ingest", native, beir, turns, "--scope", "team"); code != 0 {
		t.Fatalf("exit %d: %s", code, c.err.String())
	}
	if n := c.count(`SELECT count(*) FROM recall.memories`); n != 6 {
		t.Fatalf("%d memories after ingesting twice", n)
	}
	if !strings.Contains(c.out.String(), "(6 updated)") {
		t.Fatalf("summary %q", c.out.String())
	}
	// The query command finds them.
	if code := c.run("query", "who sailed to Gull Island?", "--scope", "team", "--budget", "50"); code != 0 {
		t.Fatalf("query exit %d: %s", code, c.err.String())
	}
	if !strings.Contains(c.out.String(), "Ana Lima sailed to Gull Island.") || !strings.Contains(c.out.String(), "found by") {
		t.Fatalf("query output %q", c.out.String())
	}
	if code := c.run("query", "ferry", "--scope", "team", "--json"); code != 0 || !strings.Contains(c.out.String(), `"external_id": "m2"`) {
		t.Fatalf("json exit %d: %s", code, c.out.String())
	}
}

func TestIngestRejectsMalformedLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, want string
	}{
		{"not JSON", "{\"type\": \"memory\", \"id\": \"a\", \"text\": \"fine\"}\n{oops\n", "bad.jsonl:2: not a JSON object"},
		{"unknown field", `{"type": "memory", "id": "a", "text": "x", "txet": "y"}` + "\n", `bad.jsonl:1: native record: json: unknown field "txet"`},
		{"bad time", `{"type": "memory", "id": "a", "text": "x", "occurred_start": "yesterday"}` + "\n", "bad.jsonl:1: native record: time \"yesterday\""},
		{"unknown type", `{"type": "note", "id": "a"}` + "\n", `bad.jsonl:1: "type" "note"`},
		{"empty text", "{\"type\": \"memory\", \"id\": \"a\", \"text\": \"fine\"}\n{\"type\": \"memory\", \"id\": \"b\", \"text\": \" \"}\n", "bad.jsonl:2: text: empty"},
		{"unknown source", `{"type": "memory", "id": "a", "text": "x", "source": "nope"}` + "\n", `bad.jsonl:1: source: no source "nope"`},
		{"wrong dimension", `{"type": "memory", "id": "a", "text": "x", "embedding": [0.1, 0.2]}` + "\n", "bad.jsonl:1: embedding: 2 dimensions"},
		{"unknown record", `{"title": "x"}` + "\n", "bad.jsonl:1: unknown record"},
		{"raw bytes", "{\"type\": \"memory\", \"id\": \"a\", \"text\": \"fine\"}\n{\"type\": \"memory\", \"id\": \"b\", \"text\": \"caf\xe9\"}\n", "bad.jsonl:2: invalid UTF-8 at byte 43"},
		{"BOM not at the start", "{\"type\": \"memory\", \"id\": \"a\", \"text\": \"fine\"}\n\uFEFF{\"type\": \"memory\", \"id\": \"b\", \"text\": \"x\"}\n", "bad.jsonl:2: not a JSON object"},
		{"escaped lone surrogate", "{\"type\": \"memory\", \"id\": \"a\", \"text\": \"fine\"}\n{\"type\": \"memory\", \"id\": \"b\", \"text\": \"x\\ud800y\"}\n",
			"bad.jsonl:2: a \\u escape of half a UTF-16 surrogate pair at byte 41"},
		{"metadata that cannot be stored", `{"type": "memory", "id": "a", "text": "x", "metadata": {"k": "a\u0000b"}}` + "\n", "bad.jsonl:1: metadata.k: invalid UTF-8 or a NUL byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			if code := c.run("ingest", writeFile(t, "bad.jsonl", tc.body)); code != 1 {
				t.Fatalf("exit %d, want 1", code)
			}
			if !strings.Contains(c.err.String(), tc.want) {
				t.Fatalf("stderr %q, want %q", c.err.String(), tc.want)
			}
			// Nothing landed, so no summary of what did; the library's prefix is not repeated.
			if strings.Contains(c.out.String(), "ingested") || strings.Contains(c.err.String(), "recall: ") {
				t.Fatalf("stdout %q, stderr %q", c.out.String(), c.err.String())
			}
			// The failed batch wrote nothing, the good line before it included.
			if n := c.count(`SELECT count(*) FROM recall.memories`); n != 0 {
				t.Fatalf("%d memories written", n)
			}
		})
	}
}

// TestIngestAcceptsBOM: a file that starts with a UTF-8 byte-order mark ingests as without.
func TestIngestAcceptsBOM(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	body := "\uFEFF{\"type\": \"memory\", \"id\": \"a\", \"text\": \"caf\u00e9 crème\"}\n"
	if code := c.run("ingest", writeFile(t, "bom.jsonl", body)); code != 0 {
		t.Fatalf("exit %d: %s", code, c.err.String())
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE external_id = 'a' AND text = 'café crème'`); n != 1 {
		t.Fatalf("%d memories as written", n)
	}
}

// TestIngestHelp: the help lists what it promises, the native record's fields.
func TestIngestHelp(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	m := &Main{cli.Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}}
	if code := m.Run(context.Background(), []string{"ingest", "--help"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{records.NativeFields(), "-format string"} {
		if !strings.Contains(errOut.String(), want) {
			t.Fatalf("help lacks %q:\n%s", want, errOut.String())
		}
	}
	if strings.Contains(errOut.String(), "see below") {
		t.Fatalf("help points at nothing:\n%s", errOut.String())
	}
}

func TestCommandUsage(t *testing.T) {
	t.Parallel()
	m := &Main{cli.Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }}}
	for _, args := range [][]string{{}, {"nope"}, {"ingest"}, {"query"}, {"query", "a", "b"}, {"migrate"}, {"migrate", "sideways"}, {"db"}, {"ingest", "x", "--batch", "0"}, {"demo", "extra"},
		{"query", "q", "--scope", ",,,"}, {"query", "q", "--scope", "a,,b"}, {"query", "q", "--scope", ""}} {
		if code := m.Run(context.Background(), args); code != 2 {
			t.Fatalf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestDemo(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if code := c.run("demo"); code != 0 {
		t.Fatalf("exit %d: %s", code, c.err.String())
	}
	first := c.out.String()
	if !strings.Contains(first, "loaded the demo corpus") || !strings.Contains(first, "300 memories") {
		t.Fatalf("first run: %q", first)
	}
	for _, q := range demoQuestions {
		if !strings.Contains(first, q.q) {
			t.Fatalf("no pack for %q", q.q)
		}
	}
	// The answers find what the questions are about, through the lanes named.
	for _, want := range []string{"48,000 euros", "lighthouse museum will open in June 2025", "Storm warning", "cardamom", "puffin burrows", "temporal#", "title#", "mention#"} {
		if !strings.Contains(first, want) {
			t.Fatalf("demo output lacks %q:\n%s", want, first)
		}
	}
	if code := c.run("demo"); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, c.err.String())
	}
	if !strings.Contains(c.out.String(), "demo corpus already loaded") {
		t.Fatalf("second run reloaded: %q", c.out.String())
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{demo}'`); n != 300 {
		t.Fatalf("%d demo memories", n)
	}
	// A database loaded from another corpus (its marker differs, and it holds a memory the
	// corpus lacks) is reloaded, through the engine: the stale memory goes, the corpus's
	// memories are there once, and one marker is left.
	ctx := context.Background()
	if _, err := c.db.Owner.Exec(ctx, `UPDATE recall.memories SET external_id = 'demo-corpus-old' WHERE scopes = '{demo:loaded}';
		INSERT INTO recall.memories (external_id, scopes, kind, text) VALUES ('stale', '{demo}', 'world', 'A memory of an older corpus.')`); err != nil {
		t.Fatal(err)
	}
	if code := c.run("demo"); code != 0 || !strings.Contains(c.out.String(), "loaded the demo corpus") {
		t.Fatalf("third run: exit %d: %s %s", code, c.out.String(), c.err.String())
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{demo}'`); n != 300 {
		t.Fatalf("%d demo memories after the reload", n)
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{demo:loaded}'`); n != 1 {
		t.Fatalf("%d markers after the reload", n)
	}
}

// TestQueryMessages: errors name what the user typed without the library's prefix repeated,
// and --json writes empty lists as [].
func TestQueryMessages(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if code := c.run("query", " ", "--scope", "team"); code != 1 || c.err.String() != "recall query: query: empty\n" {
		t.Fatalf("empty query: exit %d, stderr %q", code, c.err.String())
	}
	if code := c.run("query", "ferry", "--scope", "no spaces"); code != 2 || !strings.HasPrefix(c.err.String(), "recall query: usage: --scope: ") {
		t.Fatalf("bad scope: exit %d, stderr %q", code, c.err.String())
	}
	if code := c.run("query", "ferry", "--scope", "nobody", "--json"); code != 0 {
		t.Fatalf("empty scope: exit %d, stderr %q", code, c.err.String())
	}
	for _, want := range []string{`"items": []`, `"omitted": []`, `"warnings": []`} {
		if !strings.Contains(c.out.String(), want) {
			t.Fatalf("--json lacks %s: %s", want, c.out.String())
		}
	}
	if want := "note: scope nobody holds no memories, and the database holds none"; !strings.Contains(c.err.String(), want) {
		t.Fatalf("stderr %q, want %q", c.err.String(), want)
	}
	// A scope with no data, a mistyped one and none at all are told apart from a scope whose
	// memories do not match.
	if code := c.run("ingest", writeFile(t, "m.jsonl", `{"type": "memory", "id": "a", "text": "the ferry left late"}`+"\n"), "--scope", "team"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, c.err.String())
	}
	for _, tc := range []struct {
		args []string
		note string
	}{
		{[]string{"--scope", "taem"}, "note: scope taem holds no memories; scopes with memories: team\n"},
		{nil, `note: no --scope given, so scope "default" was read; it holds no memories; scopes with memories: team` + "\n"},
		{[]string{"--scope", "team"}, ""},
		{[]string{"--scope", "team", "--budget", "1"}, ""},
	} {
		if code := c.run(append([]string{"query", "zebra crossing"}, tc.args...)...); code != 0 || c.err.String() != tc.note {
			t.Fatalf("%v: exit %d, stderr %q, want %q", tc.args, code, c.err.String(), tc.note)
		}
	}
	// The headline counts in words a person reads, and scores are on a stated scale.
	if code := c.run("query", "ferry", "--scope", "team"); code != 0 ||
		!strings.HasPrefix(c.out.String(), `"ferry": 1 item in `) || !strings.Contains(c.out.String(), "(score 1.00 of the best)") {
		t.Fatalf("exit %d: %s", code, c.out.String())
	}
}

// TestDBStatusStopped: "recall db status" says stopped and exits 3 when no server runs (as
// pg_ctl status does), so a script can tell.
func TestDBStatusStopped(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	var out, errOut bytes.Buffer
	m := &Main{cli.Env{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
		if k == "RECALL_HOME" {
			return home
		}
		return ""
	}}}
	if code := m.Run(context.Background(), []string{"db", "status"}); code != 3 || out.String() != "stopped\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

// TestDBURLRuntime: "recall db url --runtime" prints the URL the library takes, and the
// library accepts it; --owner prints the owner's.
func TestDBURLRuntime(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if code := c.run("db", "url", "--runtime"); code != 0 {
		t.Fatalf("exit %d: %s", code, c.err.String())
	}
	url := strings.TrimSpace(c.out.String())
	if !strings.Contains(url, "recall_runtime@") {
		t.Fatalf("runtime URL %q", url)
	}
	e, err := recall.Open(context.Background(), url, recall.Config{}, recall.PoolOptions{MaxConns: 1})
	if err != nil {
		t.Fatalf("recall.Open on %s: %v", url, err)
	}
	e.Close()
	if code := c.run("db", "url", "--owner"); code != 0 || !strings.Contains(c.out.String(), "recall_owner@") {
		t.Fatalf("owner URL: exit %d, %q", code, c.out.String())
	}
	if code := c.run("db", "status", "--runtime"); code != 2 {
		t.Fatalf("--runtime with status: exit %d, want 2", code)
	}
}

// TestIngestResumes: an ingest of turns without ids stopped at a bad line names the line
// to resume from; fixed and resumed with --from-line, the turns get the ids and places the
// whole file gives them, and nothing written before is written twice.
func TestIngestResumes(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var good, bad strings.Builder
	for i := range 9 {
		line := fmt.Sprintf(`{"conversation": "c%d", "speaker": "Ana", "text": "turn %d"}`, i%2, i+1)
		good.WriteString(line + "\n")
		if i == 6 {
			line = `{"conversation": "c0", "speaker": "Ana", "text": "turn 7"` // cut
		}
		bad.WriteString(line + "\n")
	}
	if code := c.run("ingest", writeFile(t, "chat.jsonl", bad.String()), "--scope", "team", "--batch", "3"); code != 1 ||
		!strings.Contains(c.err.String(), "chat.jsonl:7:") || !strings.Contains(c.err.String(), "resume with --from-line 7") {
		t.Fatalf("exit %d: %s", code, c.err.String())
	}
	if code := c.run("ingest", writeFile(t, "chat.jsonl", good.String()), "--scope", "team", "--batch", "3", "--from-line", "7"); code != 0 ||
		!strings.Contains(c.out.String(), "3 memories (0 updated") {
		t.Fatalf("resumed: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	rows, err := c.db.Owner.Query(context.Background(), `SELECT external_id || ' ' || position FROM recall.memories ORDER BY text`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"c0:1 1", "c1:2 1", "c0:3 2", "c1:4 2", "c0:5 3", "c1:6 3", "c0:7 4", "c1:8 4", "c0:9 5"}
	if !slices.Equal(got, want) {
		t.Fatalf("after the resume: %v, want %v", got, want)
	}
}

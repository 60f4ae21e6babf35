package server_test

// Isolation, proved against the failures other memory systems shipped. Each test is named
// after one and drives the API over HTTP (REST and MCP) as a client would; the README's table
// ("Isolation, against the peers' bugs") says what each checks.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/server"
)

// mcpCall calls one tool over streamable HTTP as key, in a session of its own.
func mcpCall(t *testing.T, w *world, key, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "peers-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: w.url + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{key}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close() }()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// structured decodes a tool result's structured content into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %+v", res.Content)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// answer is what one route answered a recall with: the packed items and, for a trace, every
// candidate the statement returned.
type answer struct {
	route string
	pack  recall.Pack
	cands []server.TraceCandidate
}

// everyRecall asks body of every route that recalls: POST /v1/recall, POST /v1/trace, and the
// MCP tools recall_search and recall_trace.
func everyRecall(t *testing.T, w *world, key string, body map[string]any) []answer {
	t.Helper()
	var out []answer
	out = append(out, answer{route: "POST /v1/recall", pack: pack(t, w.do(t, "POST", "/v1/recall", key, body))})
	tr := traceOf(t, w.do(t, "POST", "/v1/trace", key, body))
	out = append(out, answer{route: "POST /v1/trace", pack: *tr.Pack, cands: tr.Candidates})
	var p recall.Pack
	structured(t, mcpCall(t, w, key, server.ToolSearch, body), &p)
	out = append(out, answer{route: "mcp " + server.ToolSearch, pack: p})
	var mt server.TraceResponse
	structured(t, mcpCall(t, w, key, server.ToolTrace, body), &mt)
	out = append(out, answer{route: "mcp " + server.ToolTrace, pack: *mt.Pack, cands: mt.Candidates})
	return out
}

// rows is what every item and candidate of a are, read as the owner: their external ids
// with their scopes, kind, tags, metadata and time.
type row struct {
	id       int64
	external string
	scopes   []string
	kind     string
	tags     []string
	metadata map[string]any
	occurred *time.Time
}

func (w *world) rowsOf(t *testing.T, a answer) []row {
	t.Helper()
	var ids []int64
	for _, it := range a.pack.Items {
		ids = append(ids, it.ID)
	}
	for _, c := range a.cands {
		ids = append(ids, c.ID)
	}
	rs, err := w.db.Owner.Query(context.Background(), `SELECT id, external_id, scopes, kind::text, tags, metadata, occurred_start
		FROM recall.memories WHERE id = ANY($1) ORDER BY id`, ids)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []row
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.id, &r.external, &r.scopes, &r.kind, &r.tags, &r.metadata, &r.occurred); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPeerLightRAG2904ScopeSelectorOnEveryRoute: LightRAG #2904 honoured the workspace
// selector on some routes and ignored it on one. Here every route that takes a scope
// selector honours it: a key narrowed to one of its scopes recalls and traces (REST and MCP)
// only from that scope, every candidate included; every write route (REST write, delete,
// summarize; MCP remember, forget) refuses a scope the key may not write, and writes nothing.
func TestPeerLightRAG2904ScopeSelectorOnEveryRoute(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, narrow := range []string{"ops", "team"} {
		body := map[string]any{"query": "Who fixed the crane before the harbor storm?", "budget": 4000, "read": []string{narrow}}
		for _, a := range everyRecall(t, w, w.keys["ana"], body) {
			rows := w.rowsOf(t, a)
			if len(a.pack.Items) == 0 {
				t.Fatalf("%s read %s: nothing packed", a.route, narrow)
			}
			for _, r := range rows {
				if !slices.Equal(r.scopes, []string{narrow}) {
					t.Fatalf("%s read [%s]: %s of scopes %v", a.route, narrow, r.external, r.scopes)
				}
			}
		}
	}
	before := w.count(t)
	refused := []struct {
		route string
		code  int
		call  func() int
	}{
		{"POST /v1/memories", 403, func() int {
			return w.do(t, "POST", "/v1/memories", w.keys["ana"], map[string]any{"scopes": []string{"ops"},
				"memories": []any{map[string]any{"id": "x", "text": "x"}}}).status
		}},
		{"DELETE /v1/memories", 403, func() int {
			return w.do(t, "DELETE", "/v1/memories", w.keys["ana"], map[string]any{"scopes": []string{"ops"}, "ids": []string{"ops-1"}}).status
		}},
		{"POST /v1/summarize", 403, func() int {
			return w.do(t, "POST", "/v1/summarize", w.keys["ana"], map[string]any{"scopes": []string{"ops"}}).status
		}},
		{"mcp " + server.ToolRemember, 1, func() int {
			return boolInt(mcpCall(t, w, w.keys["ana"], server.ToolRemember, map[string]any{"scopes": []string{"other"},
				"memories": []any{map[string]any{"id": "y", "text": "y"}}}).IsError)
		}},
		{"mcp " + server.ToolForget, 1, func() int {
			return boolInt(mcpCall(t, w, w.keys["ana"], server.ToolForget, map[string]any{"scopes": []string{"ops"}, "ids": []string{"ops-1"}}).IsError)
		}},
	}
	for _, c := range refused {
		if got := c.call(); got != c.code {
			t.Errorf("%s with a scope the key may not write: %d, want %d", c.route, got, c.code)
		}
	}
	// Without a selector, a delete runs in the key's own write scope: ops-1 is not there.
	if r := w.do(t, "DELETE", "/v1/memories", w.keys["ana"], map[string]any{"ids": []string{"ops-1", "other-1"}}); r.status != 200 || !strings.Contains(string(r.body), `"deleted":0`) {
		t.Fatalf("delete of other scopes' ids: %d %s", r.status, r.body)
	}
	var summaries int
	if err := w.db.Owner.QueryRow(context.Background(), `SELECT count(*) FROM recall.memories WHERE kind = 'summary'`).Scan(&summaries); err != nil {
		t.Fatal(err)
	}
	if n := w.count(t); n != before || summaries != 0 {
		t.Fatalf("%d memories (%d summaries) after refused writes, want %d (0)", n, summaries, before)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestPeerCognee3520FilterOnEveryRoute: cognee #3520 accepted a filter and ignored it. Here
// each filter (kind, tags, metadata, time range) holds on every route that recalls, for the
// packed items and for every candidate of a trace, checked against the rows as stored.
func TestPeerCognee3520FilterOnEveryRoute(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var mems []any
	for i := range 8 {
		kind, tag, room := "world", "blue", "a"
		if i%2 == 1 {
			kind, tag, room = "experience", "red", "b"
		}
		mems = append(mems, map[string]any{"id": fmt.Sprintf("f%d", i), "kind": kind, "tags": []string{tag},
			"metadata":       map[string]any{"room": room},
			"occurred_start": time.Date(2024, 1, 1+i, 9, 0, 0, 0, time.UTC).Format(time.RFC3339),
			"text":           fmt.Sprintf("The harbor crane inspection log, entry %d: the crane was fixed before the storm.", i)})
	}
	if r := w.do(t, "POST", "/v1/memories", w.keys["ana"], map[string]any{"memories": mems}); r.status != 200 {
		t.Fatalf("write: %d %s", r.status, r.body)
	}
	from, to := time.Date(2024, 1, 3, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 6, 0, 0, 0, 0, time.UTC)
	for _, f := range []struct {
		name    string
		filters map[string]any
		passes  func(row) bool
	}{
		{"kinds", map[string]any{"kinds": []string{"experience"}}, func(r row) bool { return r.kind == "experience" }},
		// "any" (the default) keeps untagged memories; the strict form does not.
		{"tags", map[string]any{"tags": []string{"blue"}}, func(r row) bool { return len(r.tags) == 0 || slices.Contains(r.tags, "blue") }},
		{"tags any_strict", map[string]any{"tags": []string{"blue"}, "tags_mode": "any_strict"}, func(r row) bool { return slices.Contains(r.tags, "blue") }},
		{"metadata", map[string]any{"metadata": map[string]any{"room": "b"}}, func(r row) bool { return r.metadata["room"] == "b" }},
		{"from/to", map[string]any{"from": from, "to": to}, func(r row) bool {
			return r.occurred != nil && !r.occurred.Before(from) && r.occurred.Before(to)
		}},
	} {
		body := map[string]any{"query": "When was the harbor crane fixed?", "budget": 4000, "filters": f.filters}
		for _, a := range everyRecall(t, w, w.keys["ana"], body) {
			if len(a.pack.Items) == 0 {
				t.Fatalf("%s, filter %s: nothing packed", a.route, f.name)
			}
			for _, r := range w.rowsOf(t, a) {
				if !f.passes(r) {
					t.Fatalf("%s, filter %s: %s (kind %s, tags %v, metadata %v, time %v) does not pass it",
						a.route, f.name, r.external, r.kind, r.tags, r.metadata, r.occurred)
				}
			}
		}
	}
}

// TestPeerGraphiti632NoOtherGroupsNodes: graphiti #632 returned another group's nodes and
// edges. Here two scopes hold the same entity names with different relations; a key's graph
// context, items and entities (REST and MCP) hold only its own scopes' relations, while the
// other key finds its own (so the other scope's graph is there to leak).
func TestPeerGraphiti632NoOtherGroupsNodes(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	graph := func(key, mem, predicate string) {
		t.Helper()
		body := map[string]any{
			"entities":  []any{map[string]any{"id": "alice", "name": "Alice Martin"}, map[string]any{"id": "crane", "name": "Harbor Crane"}},
			"memories":  []any{map[string]any{"id": mem, "text": "Alice Martin " + predicate + " the Harbor Crane.", "entities": []string{"alice", "crane"}}},
			"relations": []any{map[string]any{"from": "alice", "to": "crane", "predicate": predicate, "memory": mem}},
		}
		if r := w.do(t, "POST", "/v1/memories", w.keys[key], body); r.status != 200 {
			t.Fatalf("%s: %d %s", key, r.status, r.body)
		}
	}
	graph("ana", "g-team", "repaired")
	graph("bob", "g-other", "sabotaged")
	body := map[string]any{"query": "What did Alice Martin do to the Harbor Crane?", "budget": 4000, "graph_context": true}
	seen := func(a answer, predicate string) bool {
		for _, tr := range a.pack.GraphContext {
			if tr.Predicate == predicate {
				return true
			}
		}
		return false
	}
	for _, a := range everyRecall(t, w, w.keys["ana"], body) {
		if !seen(a, "repaired") || seen(a, "sabotaged") {
			t.Fatalf("%s: graph context %+v, want the team's relation only", a.route, a.pack.GraphContext)
		}
		for _, tr := range a.pack.GraphContext {
			if tr.Evidence == "g-other" {
				t.Fatalf("%s: graph context names the other scope's evidence: %+v", a.route, tr)
			}
		}
		for _, r := range w.rowsOf(t, a) {
			if slices.Contains(r.scopes, "other") {
				t.Fatalf("%s: %s of scopes %v", a.route, r.external, r.scopes)
			}
		}
		for _, it := range a.pack.Items {
			if strings.Contains(it.Text, "sabotaged") {
				t.Fatalf("%s: item %s holds the other scope's text", a.route, it.ExternalID)
			}
		}
	}
	for _, a := range everyRecall(t, w, w.keys["bob"], body) {
		if !seen(a, "sabotaged") || seen(a, "repaired") {
			t.Fatalf("bob, %s: graph context %+v", a.route, a.pack.GraphContext)
		}
	}
}

var laneLine = regexp.MustCompile(`(?m)^\s+(bm25|context)\s+rank\s+(\d+)\s+score\s+(\S+)`)

// lexicalScores is each candidate's bm25 and context lane rank and score, as a trace explains
// them.
func lexicalScores(t *testing.T, w *world, key string, body map[string]any) map[string]string {
	t.Helper()
	tr := traceOf(t, w.do(t, "POST", "/v1/trace", key, body))
	out := map[string]string{}
	for _, c := range tr.Candidates {
		for _, m := range laneLine.FindAllStringSubmatch(c.Why, -1) {
			out[c.ExternalID+" "+m[1]] = m[2] + " " + m[3]
		}
	}
	if len(out) == 0 {
		t.Fatal("the trace names no bm25 or context score")
	}
	return out
}

// TestPeerPgTextsearch492CorpusStatistics: pg_textsearch #492 computed BM25's document
// frequencies and lengths over every tenant's rows, so one tenant's writes moved another's
// scores. Here a key's BM25 and context-lane scores are unchanged, to the last printed digit,
// after another key writes 300 memories full of the query's words into its own scope, while
// that key's own scores move (so the writes change statistics where they may).
func TestPeerPgTextsearch492CorpusStatistics(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	body := map[string]any{"query": "crane storm harbor", "budget": 4000}
	anaBefore := lexicalScores(t, w, w.keys["ana"], body)
	bobBefore := lexicalScores(t, w, w.keys["bob"], body)
	var mems []any
	for i := range 300 {
		mems = append(mems, map[string]any{"id": fmt.Sprintf("flood-%d", i),
			"text": strings.Repeat("crane storm ", 1+i%7) + "harbor"})
	}
	if r := w.do(t, "POST", "/v1/memories", w.keys["bob"], map[string]any{"memories": mems}); r.status != 200 {
		t.Fatalf("bob's write: %d %s", r.status, r.body)
	}
	anaAfter := lexicalScores(t, w, w.keys["ana"], body)
	if !mapsEqual(anaBefore, anaAfter) {
		t.Fatalf("ana's lexical scores moved with bob's writes:\nbefore %v\nafter  %v", anaBefore, anaAfter)
	}
	bobAfter := lexicalScores(t, w, w.keys["bob"], body)
	for k, v := range bobBefore {
		if bobAfter[k] == v {
			t.Fatalf("bob's %s did not move with his own writes (%s): the check cannot see statistics", k, v)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestPeerHindsight1830ExpansionKeepsFilter: hindsight #1830 expanded results by id (linked
// memories) and dropped the filter on the way. Here recall expands a hit by place (the answer
// after a question, in its conversation): unfiltered, the answer comes along; with a tag filter
// the answer fails (tags "any": untagged memories pass, a memory tagged otherwise does not),
// it does not, on every route; and a turn at the next place of a
// conversation with the same id in another scope never comes along.
func TestPeerHindsight1830ExpansionKeepsFilter(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	turn := func(id, source string, pos int, speaker, tag, text string) map[string]any {
		return map[string]any{"id": id, "source": source, "position": pos, "speaker": speaker, "tags": []string{tag}, "text": text}
	}
	ana := map[string]any{"sources": []any{map[string]any{"id": "chat-1", "title": "standup"}, map[string]any{"id": "chat-2", "title": "ops chat"}},
		"memories": []any{
			turn("q1", "chat-1", 1, "Ana", "public", "Where did Tomasz hide the zeppelin key?"),
			turn("a1", "chat-1", 2, "Bo", "private", "Under the mat by the gate."),
			turn("q2", "chat-2", 1, "Ana", "public", "Who has the spare lighthouse ladder?"),
		}}
	if r := w.do(t, "POST", "/v1/memories", w.keys["ana"], ana); r.status != 200 {
		t.Fatalf("ana: %d %s", r.status, r.body)
	}
	// chat-2's second place exists only in bob's scope.
	bob := map[string]any{"sources": []any{map[string]any{"id": "chat-2", "title": "ops chat"}},
		"memories": []any{turn("b2", "chat-2", 2, "Bob", "public", "Bob keeps it in his shed.")}}
	if r := w.do(t, "POST", "/v1/memories", w.keys["bob"], bob); r.status != 200 {
		t.Fatalf("bob: %d %s", r.status, r.body)
	}
	attached := func(p recall.Pack, id string) bool {
		for _, it := range p.Items {
			if it.ExternalID == id && it.AttachedTo != 0 {
				return true
			}
		}
		return false
	}
	q := "Where is the zeppelin key hidden? Who has the lighthouse ladder?"
	for _, a := range everyRecall(t, w, w.keys["ana"], map[string]any{"query": q, "budget": 4000}) {
		if !attached(a.pack, "a1") && !attached(a.pack, "q1") {
			t.Fatalf("%s, no filter: a1 and its question q1 do not travel together: %v", a.route, itemIDs(a.pack))
		}
		for _, r := range w.rowsOf(t, a) {
			if slices.Contains(r.scopes, "other") {
				t.Fatalf("%s: %s of scopes %v came along", a.route, r.external, r.scopes)
			}
		}
	}
	for _, a := range everyRecall(t, w, w.keys["ana"], map[string]any{"query": q, "budget": 4000, "filters": map[string]any{"tags": []string{"public"}}}) {
		if len(a.pack.Items) == 0 {
			t.Fatalf("%s, tag public: nothing packed", a.route)
		}
		for _, r := range w.rowsOf(t, a) {
			if (len(r.tags) > 0 && !slices.Contains(r.tags, "public")) || slices.Contains(r.scopes, "other") {
				t.Fatalf("%s, tag public: %s (tags %v, scopes %v) came along", a.route, r.external, r.tags, r.scopes)
			}
		}
	}
}

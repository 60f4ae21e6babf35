package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-engine/recall/server"
)

// TestWrongMethod: a route asked with a method it does not take answers 405 with Allow
// naming the ones it does (and a problem body), before any key is checked.
func TestWrongMethod(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, c := range []struct{ method, path, allow string }{
		{"GET", "/v1/recall", "POST"},
		{"PUT", "/v1/memories", "DELETE, POST"},
		{"POST", "/healthz", "GET, HEAD"},
	} {
		r := w.do(t, c.method, c.path, w.keys["ana"], nil)
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d, Allow %q; want 405, Allow %q (%s)", c.method, c.path, r.status, r.header.Get("Allow"), c.allow, r.body)
		}
	}
}

// TestMetricsToken: with a metrics token, /metrics answers 401 without it or with another
// (an API key included) and serves the metrics with it; without one, /metrics is open.
func TestMetricsToken(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if r := w.do(t, "GET", "/metrics", "", nil); r.status != http.StatusOK {
		t.Fatalf("open /metrics: %d", r.status)
	}
	alt := *w
	alt.url = serveWith(t, w, server.Config{MetricsToken: "scrape-secret"})
	for _, tok := range []string{"", "wrong", w.keys["ana"]} {
		if r := alt.do(t, "GET", "/metrics", tok, nil); r.status != http.StatusUnauthorized || r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("/metrics with %q: %d", tok, r.status)
		}
	}
	r := alt.do(t, "GET", "/metrics", "scrape-secret", nil)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), "recall_") {
		t.Fatalf("/metrics with the token: %d %.200s", r.status, r.body)
	}
}

// TestDeleteInvisibleIsNotFound: deleting ids the key cannot see answers exactly as deleting
// ids that exist nowhere (200, deleted 0), and deletes nothing.
func TestDeleteInvisibleIsNotFound(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	invisible := w.do(t, "DELETE", "/v1/memories", w.keys["bob"], map[string]any{"ids": []string{"team-1", "team-2"}})
	missing := w.do(t, "DELETE", "/v1/memories", w.keys["bob"], map[string]any{"ids": []string{"nowhere-1", "nowhere-2"}})
	if invisible.status != http.StatusOK || invisible.status != missing.status || string(invisible.body) != string(missing.body) {
		t.Fatalf("invisible ids: %d %s; missing ids: %d %s", invisible.status, invisible.body, missing.status, missing.body)
	}
	var n int
	if err := w.db.Owner.QueryRow(t.Context(), `SELECT count(*) FROM recall.memories WHERE external_id IN ('team-1', 'team-2')`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d of team's memories left: %v", n, err)
	}
}

// TestPrune: POST /v1/prune deletes the key's scope set's memories whose expires_at has
// passed (at the time given, else now) and keeps the rest; a read-only key is refused, and a
// key of another scope set prunes nothing of this one.
func TestPrune(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	body := map[string]any{"memories": []map[string]any{
		{"id": "p-old", "text": "The winter ferry timetable.", "expires_at": "2001-02-03T00:00:00Z"},
		{"id": "p-later", "text": "The summer ferry timetable.", "expires_at": "2001-08-03T00:00:00Z"},
		{"id": "p-kept", "text": "The harbour map."},
	}}
	if r := w.do(t, "POST", "/v1/memories", w.keys["ana"], body); r.status != http.StatusOK {
		t.Fatalf("write: %d %s", r.status, r.body)
	}
	count := func() int {
		var n int
		if err := w.db.Owner.QueryRow(t.Context(), `SELECT count(*) FROM recall.memories WHERE external_id LIKE 'p-%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		key    string
		body   map[string]any
		status int
		answer string
		left   int
	}{
		{"reader", map[string]any{}, http.StatusForbidden, "", 3},
		{"bob", map[string]any{}, http.StatusOK, `{"deleted":0}`, 3},
		{"ana", map[string]any{"at": "2001-05-01T00:00:00Z"}, http.StatusOK, `{"deleted":1}`, 2},
		{"ana", map[string]any{}, http.StatusOK, `{"deleted":1}`, 1},
		{"ana", map[string]any{"at": "May 2001"}, http.StatusBadRequest, "", 1},
	} {
		r := w.do(t, "POST", "/v1/prune", w.keys[c.key], c.body)
		if r.status != c.status || (c.answer != "" && strings.TrimSpace(string(r.body)) != c.answer) {
			t.Errorf("%s prunes %v: %d %s; want %d %s", c.key, c.body, r.status, r.body, c.status, c.answer)
		}
		if n := count(); n != c.left {
			t.Errorf("after %s's prune %v: %d of the memories left, want %d", c.key, c.body, n, c.left)
		}
	}
}

// TestAsOf: a memory that supersedes another, over HTTP and MCP: a recall answers with the
// new one by default and, as_of a time before it held, with the old one; either way never
// both.
func TestAsOf(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	body := map[string]any{"memories": []map[string]any{
		{"id": "home-1", "text": "Ana lives in Lisbon, near the river.", "valid_from": "2019-01-01T00:00:00Z"},
		{"id": "home-2", "text": "Ana moved to Berlin and lives there now.", "valid_from": "2024-01-01T00:00:00Z", "supersedes": []string{"home-1"}},
	}}
	if r := w.do(t, "POST", "/v1/memories", w.keys["ana"], body); r.status != http.StatusOK || !strings.Contains(string(r.body), `"superseded":1`) {
		t.Fatalf("write: %d %s", r.status, r.body)
	}
	for _, c := range []struct {
		asOf        any
		want, never string
	}{{nil, "Berlin", "Lisbon"}, {"2022-06-01T00:00:00Z", "Lisbon", "Berlin"}} {
		req := map[string]any{"query": "Where does Ana live?", "budget": 2000}
		if c.asOf != nil {
			req["as_of"] = c.asOf
		}
		r := w.do(t, "POST", "/v1/recall", w.keys["ana"], req)
		if r.status != http.StatusOK || !strings.Contains(string(r.body), c.want) || strings.Contains(string(r.body), c.never) {
			t.Errorf("HTTP recall as of %v: %d, want %s and never %s: %.300s", c.asOf, r.status, c.want, c.never, r.body)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: w.url + "/mcp",
			HTTPClient: &http.Client{Transport: bearerTransport{w.keys["ana"]}}, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: server.ToolSearch, Arguments: req})
		_ = cs.Close()
		if err != nil || res.IsError || !strings.Contains(resultText(res), c.want) || strings.Contains(resultText(res), c.never) {
			t.Errorf("MCP search as of %v: %v, want %s and never %s: %.300s", c.asOf, err, c.want, c.never, resultText(res))
		}
	}
}

// TestSupersedeRoutes: POST /v1/supersede and the MCP tool recall_supersede mark stored
// memories superseded, after which a recall answers with the newer one (and, as_of before
// it held, with the older); a read-only key is refused, another scope set's key finds no
// such memories, and an unknown id is a 400 naming the field.
func TestSupersedeRoutes(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	body := map[string]any{"memories": []map[string]any{
		{"id": "desk-1", "text": "Ana's desk is on floor 2, by the window.", "occurred_start": "2020-01-01T00:00:00Z"},
		{"id": "desk-2", "text": "Ana's desk moved to floor 5, near the stairs.", "valid_from": "2024-01-01T00:00:00Z"},
		{"id": "car-1", "text": "Ana drives a red van to work.", "occurred_start": "2020-01-01T00:00:00Z"},
		{"id": "car-2", "text": "Ana now cycles to work; the red van is sold.", "valid_from": "2024-03-01T00:00:00Z"},
	}}
	if r := w.do(t, "POST", "/v1/memories", w.keys["ana"], body); r.status != http.StatusOK {
		t.Fatalf("write: %d %s", r.status, r.body)
	}
	for _, c := range []struct {
		key    string
		body   map[string]any
		status int
		answer string
	}{
		{"reader", map[string]any{"by": "desk-2", "supersedes": []string{"desk-1"}}, http.StatusForbidden, ""},
		{"bob", map[string]any{"by": "desk-2", "supersedes": []string{"desk-1"}}, http.StatusBadRequest, "supersedes[0]"},
		{"ana", map[string]any{"by": "desk-2", "supersedes": []string{"desk-1", "desk-9"}}, http.StatusBadRequest, "supersedes[1]"},
		{"ana", map[string]any{"by": "desk-2", "supersedes": []string{"desk-1"}}, http.StatusOK, `{"superseded":1}`},
	} {
		r := w.do(t, "POST", "/v1/supersede", w.keys[c.key], c.body)
		if r.status != c.status || (c.status == http.StatusOK && strings.TrimSpace(string(r.body)) != c.answer) ||
			(c.status == http.StatusBadRequest && !strings.Contains(string(r.body), c.answer)) {
			t.Errorf("%s supersedes %v: %d %s; want %d %s", c.key, c.body, r.status, r.body, c.status, c.answer)
		}
	}
	res := mcpCall(t, w, w.keys["ana"], server.ToolSupersede, map[string]any{"by": "car-2", "supersedes": []string{"car-1"}})
	if res.IsError || !strings.Contains(resultText(res), "marked 1") {
		t.Fatalf("MCP supersede: %s", resultText(res))
	}
	// recall_remember takes the validity and the supersession with the memory.
	res = mcpCall(t, w, w.keys["ana"], server.ToolRemember, map[string]any{"memories": []map[string]any{
		{"id": "pet-1", "text": "Ana's pet is a grey cat named Ash.", "valid_from": "2020-01-01T00:00:00Z"},
		{"id": "pet-2", "text": "Ana's pet is now a beagle named Rex.", "valid_from": "2024-02-01T00:00:00Z", "supersedes": []string{"pet-1"}},
	}})
	var out server.RememberOutput
	structured(t, res, &out)
	if out.Superseded != 1 {
		t.Fatalf("MCP remember with supersedes: %s", resultText(res))
	}
	for _, c := range []struct {
		query, asOf, want, never string
	}{
		{"Where is Ana's desk?", "", "floor 5", "floor 2"},
		{"Where is Ana's desk?", "2022-01-01T00:00:00Z", "floor 2", "floor 5"},
		{"How does Ana get to work?", "", "cycles", "drives a red van"},
		{"How does Ana get to work?", "2023-01-01T00:00:00Z", "drives a red van", "cycles"},
		{"What pet does Ana have?", "", "beagle", "grey cat"},
		{"What pet does Ana have?", "2022-01-01T00:00:00Z", "grey cat", "beagle"},
	} {
		req := map[string]any{"query": c.query, "budget": 2000}
		if c.asOf != "" {
			req["as_of"] = c.asOf
		}
		r := w.do(t, "POST", "/v1/recall", w.keys["ana"], req)
		if r.status != http.StatusOK || !strings.Contains(string(r.body), c.want) || strings.Contains(string(r.body), c.never) {
			t.Errorf("%q as of %q: %d, want %s and never %s: %.300s", c.query, c.asOf, r.status, c.want, c.never, r.body)
		}
	}
	// Marked instead of left out (HTTP and MCP), and said in the trace.
	marked := `"stale":"superseded by desk-2 on 2024-01-01"`
	r := w.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": "Where is Ana's desk?", "budget": 2000, "mark_stale": true})
	if r.status != http.StatusOK || !strings.Contains(string(r.body), "floor 5") || !strings.Contains(string(r.body), marked) {
		t.Errorf("mark_stale: %d %.600s", r.status, r.body)
	}
	r = w.do(t, "POST", "/v1/trace", w.keys["ana"], map[string]any{"query": "Where is Ana's desk?", "budget": 2000})
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"left_out":[{"id":`) ||
		!strings.Contains(string(r.body), `"why":"superseded by desk-2 on 2024-01-01"`) {
		t.Errorf("trace: %d, want desk-1 left out and why: %.300s", r.status, r.body)
	}
	res = mcpCall(t, w, w.keys["ana"], server.ToolSearch, map[string]any{"query": "Where is Ana's desk?", "mark_stale": true})
	if text := resultText(res); res.IsError || !strings.Contains(text, "NO LONGER HOLDS: superseded by desk-2 on 2024-01-01") || !strings.Contains(text, "floor 5") {
		t.Errorf("MCP mark_stale: %s", text)
	}
}

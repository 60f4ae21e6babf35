package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/keys"
	"github.com/recall-engine/recall/server"
)

// world is a served database: memories in scopes team, ops and other, keys for them, and
// the server on a loopback port.
type world struct {
	db     *testdb.DB
	engine *recall.Engine
	srv    *server.Server
	url    string
	keys   map[string]string // name -> key text
	ids    map[string]string // name -> key id
	log    *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newWorld(t *testing.T) *world {
	t.Helper()
	return newWorldOn(t, testdb.New(t))
}

// newWorldOn is newWorld on db, a migrated database of the test cluster or of Citus.
func newWorldOn(t *testing.T, db *testdb.DB) *world {
	t.Helper()
	ctx := context.Background()
	emb, err := embed.NewHashing(0)
	if err != nil {
		t.Fatal(err)
	}
	e, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{db: db, engine: e, keys: map[string]string{}, ids: map[string]string{}, log: &syncBuffer{}}
	writer := recall.User{ID: "w", Read: []string{"ops", "other", "team"}, Write: []string{"ops", "other", "team"}}
	for _, sc := range []string{"team", "ops", "other"} {
		var b recall.Batch
		b.Scopes = []string{sc}
		for i := range 6 {
			b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("%s-%d", sc, i),
				Text: fmt.Sprintf("The %s crane %d was fixed by Alice Martin before the harbor storm (%s notes).", sc, i, sc)})
		}
		if _, err := e.Write(ctx, writer, b); err != nil {
			t.Fatal(err)
		}
	}
	for name, spec := range map[string]keys.Spec{
		"ana":      {User: "ana", Read: []string{"team", "ops"}, Write: []string{"team"}},
		"reader":   {User: "rita", Read: []string{"team", "ops"}},
		"bob":      {User: "bob", Read: []string{"other"}, Write: []string{"other"}},
		"revoked":  {User: "rex", Read: []string{"team"}, Write: []string{"team"}},
		"revokeme": {User: "rae", Read: []string{"team"}},
	} {
		text, k, err := keys.Create(ctx, db.Owner, spec)
		if err != nil {
			t.Fatal(err)
		}
		w.keys[name], w.ids[name] = text, k.ID
	}
	if err := keys.Revoke(ctx, db.Owner, w.ids["revoked"]); err != nil {
		t.Fatal(err)
	}
	w.srv, err = server.New(server.Config{Engine: e, Keys: db.Runtime, Pool: db.Runtime, Ready: e.Ready,
		Logger: slog.New(slog.NewJSONHandler(w.log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.srv.Serve(sctx, ln, 5*time.Second) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	w.url = "http://" + ln.Addr().String()
	return w
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) problem(t *testing.T) server.Problem {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("status %d, content type %q, body %s", r.status, ct, r.body)
	}
	var p server.Problem
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Status != r.status {
		t.Fatalf("problem status %d, response %d", p.Status, r.status)
	}
	return p
}

func (w *world) do(t *testing.T, method, path, key string, body any) response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case io.Reader: // sent as it reads: chunked unless net/http can size it (a *strings.Reader)
		rd = b
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, w.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{res.StatusCode, res.Header, b}
}

func (w *world) count(t *testing.T) int {
	t.Helper()
	var n int
	if err := w.db.Owner.QueryRow(context.Background(), `SELECT count(*) FROM recall.memories`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// scopesOf is each packed memory's scope set, read as the owner.
func (w *world) scopesOf(t *testing.T, items []recall.Item) [][]string {
	t.Helper()
	var out [][]string
	for _, it := range items {
		var s []string
		if err := w.db.Owner.QueryRow(context.Background(), `SELECT scopes FROM recall.memories WHERE id = $1`, it.ID).Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func pack(t *testing.T, r response) recall.Pack {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var p recall.Pack
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAuthMatrix(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	q := map[string]any{"query": "Who fixed the crane before the storm?", "budget": 2000}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range q {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	// No key, a malformed key, a revoked key: 401, with the challenge.
	for name, key := range map[string]string{"none": "", "garbage": "rk_nope", "revoked": w.keys["revoked"]} {
		for _, route := range []struct{ method, path string }{{"POST", "/v1/recall"}, {"GET", "/v1/me"}, {"POST", "/v1/browse"},
			{"POST", "/v1/memory"}, {"POST", "/v1/ingest"}} {
			var body any = q
			if route.method == "GET" {
				body = nil
			}
			r := w.do(t, route.method, route.path, key, body)
			if r.status != http.StatusUnauthorized || r.header.Get("WWW-Authenticate") == "" {
				t.Fatalf("%s key, %s %s: status %d, WWW-Authenticate %q", name, route.method, route.path, r.status, r.header.Get("WWW-Authenticate"))
			}
			r.problem(t)
		}
	}
	// A key sees its scopes and no other.
	check := func(name string, r response, allowed ...string) {
		t.Helper()
		p := pack(t, r)
		if len(p.Items) == 0 {
			t.Fatalf("%s: nothing packed", name)
		}
		for i, s := range w.scopesOf(t, p.Items) {
			ok := false
			for _, a := range allowed {
				ok = ok || slices.Contains(s, a)
			}
			if !ok {
				t.Fatalf("%s: item %s of scopes %v, the key reads %v", name, p.Items[i].ExternalID, s, allowed)
			}
		}
	}
	check("ana", w.do(t, "POST", "/v1/recall", w.keys["ana"], q), "team", "ops")
	check("bob", w.do(t, "POST", "/v1/recall", w.keys["bob"], q), "other")
	check("ana narrowed to ops", w.do(t, "POST", "/v1/recall", w.keys["ana"], with(map[string]any{"read": []string{"ops"}})), "ops")
	tr := traceOf(t, w.do(t, "POST", "/v1/trace", w.keys["ana"], q))
	check("ana trace", response{200, nil, mustJSON(t, tr.Pack)}, "team", "ops")
	var cands []recall.Item
	for _, c := range tr.Candidates {
		cands = append(cands, recall.Item{ID: c.ID, ExternalID: c.ExternalID})
	}
	for i, s := range w.scopesOf(t, cands) {
		if !slices.Contains(s, "team") && !slices.Contains(s, "ops") {
			t.Fatalf("trace candidate %s of scopes %v", cands[i].ExternalID, s)
		}
	}
	// Widening is refused with the field named.
	for _, c := range []struct {
		key   string
		path  string
		body  any
		field string
	}{
		{"ana", "/v1/recall", with(map[string]any{"read": []string{"team", "other"}}), "read[1]"},
		{"ana", "/v1/trace", with(map[string]any{"read": []string{"other"}}), "read[0]"},
		{"ana", "/v1/recall", with(map[string]any{"write": []string{"ops"}}), "write[0]"},
		{"bob", "/v1/recall", with(map[string]any{"read": []string{"team"}}), "read[0]"},
		{"ana", "/v1/memories", map[string]any{"scopes": []string{"ops"}, "memories": []any{map[string]any{"id": "x", "text": "x"}}}, "scopes[0]"},
		{"reader", "/v1/memories", map[string]any{"memories": []any{map[string]any{"id": "x", "text": "x"}}}, "scopes"},
		{"bob", "/v1/memories", map[string]any{"scopes": []string{"team"}, "memories": []any{map[string]any{"id": "x", "text": "x"}}}, "scopes[0]"},
	} {
		r := w.do(t, "POST", c.path, w.keys[c.key], c.body)
		if r.status != http.StatusForbidden {
			t.Fatalf("%s %s %v: status %d, want 403: %s", c.key, c.path, c.body, r.status, r.body)
		}
		if p := r.problem(t); len(p.Errors) != 1 || p.Errors[0].Field != c.field {
			t.Fatalf("%s %s: errors %+v, want field %s", c.key, c.path, p.Errors, c.field)
		}
	}
	if n := w.count(t); n != 18 {
		t.Fatalf("%d memories after refused writes, want 18", n)
	}
	// Revocation takes effect on the next request.
	if r := w.do(t, "POST", "/v1/recall", w.keys["revokeme"], q); r.status != http.StatusOK {
		t.Fatalf("before revoking: %d", r.status)
	}
	if err := keys.Revoke(context.Background(), w.db.Owner, w.ids["revokeme"]); err != nil {
		t.Fatal(err)
	}
	if r := w.do(t, "POST", "/v1/recall", w.keys["revokeme"], q); r.status != http.StatusUnauthorized {
		t.Fatalf("after revoking: %d", r.status)
	}
	// A key writes and deletes within its scopes.
	body := map[string]any{"memories": []any{map[string]any{"id": "new-1", "text": "Ana repaired the ferry ramp on Tuesday."}}}
	if r := w.do(t, "POST", "/v1/memories", w.keys["ana"], body); r.status != http.StatusOK || !strings.Contains(string(r.body), `"memories":1`) {
		t.Fatalf("write: %d %s", r.status, r.body)
	}
	if r := w.do(t, "DELETE", "/v1/memories", w.keys["ana"], map[string]any{"ids": []string{"new-1", "ops-1"}}); r.status != http.StatusOK || string(r.body) != "{\"deleted\":1}\n" {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	// The log has a line per request with the key's id, and never a key.
	log := w.log.String()
	for name, k := range w.keys {
		if strings.Contains(log, k[len(k)-20:]) {
			t.Fatalf("the log holds %s's key", name)
		}
	}
	if !strings.Contains(log, `"key":"`+w.ids["ana"]+`"`) || !strings.Contains(log, `"route":"POST /v1/recall"`) || !strings.Contains(log, `"statement_ms"`) {
		t.Fatalf("log lines lack the route, key id or timings:\n%s", log)
	}
}

func traceOf(t *testing.T, r response) server.TraceResponse {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("trace: %d %s", r.status, r.body)
	}
	var tr server.TraceResponse
	if err := json.Unmarshal(r.body, &tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// getBody is the body of a GET that must answer 200.
func getBody(t *testing.T, url string) []byte {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close() //nolint:errcheck // read to the end below
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
	}
	return b
}

// itemIDs is a pack's items as comparable text: ids, scores and texts in order.
func itemIDs(p recall.Pack) string {
	var b strings.Builder
	for _, it := range p.Items {
		fmt.Fprintf(&b, "%s %.9f %s\n", it.ExternalID, it.Score, it.Text)
	}
	return b.String()
}

// TestSamePackAsGo: the API's pack is the Go API's for the same user (a read-only key, so
// no access is recorded between the two).
func TestSamePackAsGo(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	user := recall.User{ID: "rita", Read: []string{"team", "ops"}}
	want, err := w.engine.Recall(context.Background(), user, "Who fixed the crane?", 300, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := pack(t, w.do(t, "POST", "/v1/recall", w.keys["reader"], map[string]any{"query": "Who fixed the crane?", "budget": 300}))
	if itemIDs(got) != itemIDs(*want) || got.Used != want.Used || len(got.Omitted) != len(want.Omitted) {
		t.Fatalf("HTTP pack:\n%s\nGo pack:\n%s", itemIDs(got), itemIDs(*want))
	}
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	key := w.keys["ana"]
	huge := bytes.Repeat([]byte("a"), 10<<20)
	for _, c := range []struct {
		name, method, path string
		body               any
		status             int
		field              string
	}{
		{"malformed JSON", "POST", "/v1/recall", []byte(`{"query": "x", `), 400, "body"},
		{"empty body", "POST", "/v1/recall", []byte(``), 400, "body"},
		{"wrong type", "POST", "/v1/recall", []byte(`{"query": "x", "budget": "many"}`), 400, "budget"},
		{"unknown field", "POST", "/v1/recall", []byte(`{"query": "x", "budget": 10, "bugdet": 5}`), 400, "bugdet"},
		{"two values", "POST", "/v1/recall", []byte(`{"query": "x", "budget": 10} {}`), 400, "body"},
		{"invalid UTF-8", "POST", "/v1/recall", []byte("{\"query\": \"caf\xe9\", \"budget\": 10}"), 400, "body"},
		{"empty query", "POST", "/v1/recall", map[string]any{"query": "", "budget": 10}, 400, "query"},
		{"10k-token query", "POST", "/v1/recall", map[string]any{"query": strings.Repeat("harbor ", 10000), "budget": 10}, 413, "body"},
		{"600-token query", "POST", "/v1/trace", map[string]any{"query": strings.Repeat("harbor ", 600), "budget": 10}, 400, "query"},
		{"budget zero", "POST", "/v1/recall", map[string]any{"query": "x", "budget": 0}, 400, "budget"},
		{"bad tags mode", "POST", "/v1/recall", map[string]any{"query": "x", "budget": 10, "filters": map[string]any{"tags": []string{"a"}, "tags_mode": "most"}}, 400, "filters.tags_mode"},
		{"10 MB write", "POST", "/v1/memories", append(append([]byte(`{"memories": [{"id": "big", "text": "`), huge...), `"}]}`...), 413, "body"},
		{"bad memory", "POST", "/v1/memories", map[string]any{"memories": []any{map[string]any{"id": "ok", "text": "fine"}, map[string]any{"id": "", "text": "no id"}}}, 400, "memories[1].id"},
		{"NUL in text", "POST", "/v1/memories", map[string]any{"memories": []any{map[string]any{"id": "n", "text": "a\x00b"}}}, 400, "memories[0].text"},
		{"wrong type in batch", "POST", "/v1/memories", []byte(`{"memories": [{"id": 7, "text": "x"}]}`), 400, "memories.id"},
		{"delete without ids", "DELETE", "/v1/memories", []byte(`{"ids": [""]}`), 400, "ids[0].id"},
		{"browse: unknown field", "POST", "/v1/browse", []byte(`{"txt": "x"}`), 400, "txt"},
		{"browse: 100 kB body", "POST", "/v1/browse", map[string]any{"text": strings.Repeat("a", 100<<10)}, 413, "body"},
		{"browse: long text", "POST", "/v1/browse", map[string]any{"text": strings.Repeat("a", 600)}, 400, "text"},
		{"browse: offset", "POST", "/v1/browse", map[string]any{"offset": 20000}, 400, "offset"},
		{"browse: invalid UTF-8", "POST", "/v1/browse", []byte("{\"text\": \"caf\xe9\"}"), 400, "body"},
		{"memory: no id", "POST", "/v1/memory", map[string]any{"id": ""}, 400, "id"},
		{"memory: 100 kB body", "POST", "/v1/memory", map[string]any{"id": strings.Repeat("a", 100<<10)}, 413, "body"},
		{"ingest: batch", "POST", "/v1/ingest?batch=0", []byte(`{}`), 400, "batch"},
	} {
		r := w.do(t, c.method, c.path, key, c.body)
		if r.status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, r.status, c.status, r.body)
			continue
		}
		p := r.problem(t)
		if len(p.Errors) == 0 || p.Errors[0].Field != c.field {
			t.Errorf("%s: errors %+v, want field %s", c.name, p.Errors, c.field)
		}
	}
	if n := w.count(t); n != 18 {
		t.Fatalf("%d memories after bad requests, want 18", n)
	}
	if r := w.do(t, "GET", "/v1/nothing", key, nil); r.status != 404 {
		t.Fatalf("unknown route: %d", r.status)
	}
}

func TestOperationsRoutes(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if r := w.do(t, "GET", "/healthz", "", nil); r.status != 200 {
		t.Fatalf("healthz %d", r.status)
	}
	if r := w.do(t, "GET", "/readyz", "", nil); r.status != 200 {
		t.Fatalf("readyz %d %s", r.status, r.body)
	}
	pack(t, w.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": "crane", "budget": 100}))
	w.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": "", "budget": 100})
	m := string(w.do(t, "GET", "/metrics", "", nil).body)
	for _, want := range []string{
		`recall_http_requests_total{code="200",route="POST /v1/recall"} 1`,
		`recall_http_requests_total{code="400",route="POST /v1/recall"} 1`,
		`recall_errors_total{kind="invalid-input"} 1`,
		`recall_stage_duration_seconds_count{stage="statement"} 1`,
		`recall_http_request_duration_seconds_bucket{route="POST /v1/recall",le="+Inf"} 2`,
		`recall_pool_connections{state="total"}`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	var doc map[string]any
	if r := w.do(t, "GET", "/openapi.json", "", nil); r.status != 200 || json.Unmarshal(r.body, &doc) != nil || doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi.json: %d", r.status)
	}
}

// TestShutdownFinishesInFlight: when the server is told to stop while a write is in flight,
// the write completes and is answered, and new connections are refused.
func TestShutdownFinishesInFlight(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, err := server.New(server.Config{Engine: w.engine, Keys: w.db.Runtime, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln, 30*time.Second) }()
	var mems []any
	for i := range 1500 {
		mems = append(mems, map[string]any{"id": fmt.Sprintf("bulk-%d", i), "text": fmt.Sprintf("Bulk note %d about the harbor crane and the ferry.", i)})
	}
	body := mustJSON(t, map[string]any{"memories": mems})
	req, err := http.NewRequest("POST", "http://"+ln.Addr().String()+"/v1/memories", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+w.keys["ana"])
	answered := make(chan response, 1)
	start := time.Now()
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- response{status: -1, body: []byte(err.Error())}
			return
		}
		b, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		answered <- response{status: res.StatusCode, body: b}
	}()
	// Stop once the write is being served (on a loaded machine the request can take a while to
	// arrive): /metrics counts itself and the write.
	for !strings.Contains(string(getBody(t, "http://"+ln.Addr().String()+"/metrics")), "recall_http_in_flight 2") {
		if time.Since(start) > 30*time.Second {
			t.Fatal("the write was not in flight after 30 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
	stop()
	var r response
	select {
	case r = <-answered:
		t.Fatal("the write was answered before the shutdown began: the test proved nothing")
	default:
		r = <-answered
	}
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"memories":1500`) {
		t.Fatalf("in-flight write: %d %s", r.status, r.body)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if n := w.count(t); n != 18+1500 {
		t.Fatalf("%d memories, want %d", n, 18+1500)
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err == nil {
		t.Fatal("the server still accepts connections after shutdown")
	}
}

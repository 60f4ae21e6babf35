package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/recall-engine/recall/server"
)

// TestBrowseRoutes: GET /v1/me says what the key may do; POST /v1/browse and /v1/memory
// answer with the key's scopes' memories only, as the engine does for that user; a key
// without write scopes is refused an ingest; bad filters get a problem naming the field;
// every route refuses a request without a key.
func TestBrowseRoutes(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var me server.MeResponse
	if r := w.do(t, "GET", "/v1/me", w.keys["reader"], nil); r.status != 200 || json.Unmarshal(r.body, &me) != nil ||
		me.User != "rita" || me.CanWrite || !slices.Equal(me.Read, []string{"ops", "team"}) {
		t.Fatalf("me (reader): %d %s", r.status, r.body)
	}
	if r := w.do(t, "GET", "/v1/me", w.keys["ana"], nil); r.status != 200 || json.Unmarshal(r.body, &me) != nil || !me.CanWrite {
		t.Fatalf("me (ana): %d %s", r.status, r.body)
	}
	browse := func(key string, q server.BrowseRequest) server.BrowseResponse {
		t.Helper()
		r := w.do(t, "POST", "/v1/browse", key, q)
		var b server.BrowseResponse
		if r.status != 200 || json.Unmarshal(r.body, &b) != nil {
			t.Fatalf("browse %+v: %d %s", q, r.status, r.body)
		}
		return b
	}
	for key, want := range map[string][]string{"bob": {"other"}, "reader": {"ops", "team"}} {
		b := browse(w.keys[key], server.BrowseRequest{Limit: 200})
		seen := map[string]bool{}
		for _, m := range b.Memories {
			if !slices.Contains(want, m.Scopes[0]) {
				t.Fatalf("%s browsed %s of %v", key, m.ID, m.Scopes)
			}
			seen[m.Scopes[0]] = true
		}
		if len(b.Memories) != 6*len(want) || len(seen) != len(want) {
			t.Fatalf("%s browsed %d memories of %v, want %d of %v", key, len(b.Memories), seen, 6*len(want), want)
		}
	}
	if b := browse(w.keys["reader"], server.BrowseRequest{Text: "ops crane 3"}); len(b.Memories) != 1 || b.Memories[0].ID != "ops-3" {
		t.Fatalf("browse by text: %+v", b.Memories)
	}
	if r := w.do(t, "POST", "/v1/browse", w.keys["reader"], map[string]any{"limit": 500}); r.status != 400 || r.problem(t).Errors[0].Field != "limit" {
		t.Fatalf("limit 500: %d %s", r.status, r.body)
	}
	var mr server.MemoryResponse
	if r := w.do(t, "POST", "/v1/memory", w.keys["bob"], server.MemoryRequest{ID: "other-2"}); r.status != 200 ||
		json.Unmarshal(r.body, &mr) != nil || len(mr.Memories) != 1 || mr.Memories[0].ID != "other-2" {
		t.Fatalf("bob's other-2: %d %s", r.status, r.body)
	}
	if r := w.do(t, "POST", "/v1/memory", w.keys["reader"], server.MemoryRequest{ID: "other-2"}); r.status != 200 ||
		json.Unmarshal(r.body, &mr) != nil || len(mr.Memories) != 0 {
		t.Fatalf("the reader reads bob's other-2: %d %s", r.status, r.body)
	}
	for _, c := range []struct{ method, path string }{{"GET", "/v1/me"}, {"POST", "/v1/browse"}, {"POST", "/v1/memory"}, {"POST", "/v1/ingest"}} {
		if r := w.do(t, c.method, c.path, "", []byte("{}")); r.status != 401 {
			t.Errorf("%s %s without a key: %d", c.method, c.path, r.status)
		}
	}
	if r := w.do(t, "POST", "/v1/ingest", w.keys["reader"], []byte(`{"type": "memory", "id": "x", "text": "t"}`)); r.status != 403 {
		t.Fatalf("ingest with a read-only key: %d %s", r.status, r.body)
	}
}

// TestIngestRoute: POST /v1/ingest loads JSONL as recall ingest does, one progress line per
// batch; a malformed line stops it with that line's number, the batches before it written.
func TestIngestRoute(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	before := w.count(t)
	var body strings.Builder
	for i := range 7 {
		body.WriteString(`{"speaker": "Ana", "text": "turn ` + string(rune('a'+i)) + `", "conversation": "c1", "date": "2024-03-0` + string(rune('1'+i)) + `"}` + "\n")
	}
	lines := func(r []byte) []server.IngestProgress {
		var out []server.IngestProgress
		sc := bufio.NewScanner(bytes.NewReader(r))
		for sc.Scan() {
			var p server.IngestProgress
			if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
				t.Fatalf("%v: %s", err, sc.Bytes())
			}
			out = append(out, p)
		}
		return out
	}
	r := w.do(t, "POST", "/v1/ingest?batch=3&scope=team", w.keys["ana"], []byte(body.String()))
	ps := lines(r.body)
	if r.status != 200 || r.header.Get("Content-Type") != "application/x-ndjson" || len(ps) != 4 || !ps[3].Done ||
		ps[0].Result.Memories != 3 || ps[2].Result.Memories != 7 || ps[3].Lines != 7 {
		t.Fatalf("ingest: %d %s", r.status, r.body)
	}
	if n := w.count(t); n != before+7 {
		t.Fatalf("%d memories after the ingest, want %d", n, before+7)
	}
	bad := body.String() + `{"speaker": "Ana", "text": "turn h", "date": "someday"}` + "\n"
	r = w.do(t, "POST", "/v1/ingest?batch=5&scope=team", w.keys["ana"], []byte(bad))
	ps = lines(r.body)
	last := ps[len(ps)-1]
	if last.Done || last.Error == nil || last.Error.Line != 8 || ps[0].Result.Memories != 5 {
		t.Fatalf("ingest with a bad line 8: %s", r.body)
	}
	if r := w.do(t, "POST", "/v1/ingest?format=csv", w.keys["ana"], []byte("x")); r.status != http.StatusBadRequest || r.problem(t).Errors[0].Field != "format" {
		t.Fatalf("format csv: %d %s", r.status, r.body)
	}
	if r := w.do(t, "POST", "/v1/ingest?scope=other", w.keys["ana"], []byte("{}")); r.status != http.StatusForbidden {
		t.Fatalf("ingest into another's scope: %d %s", r.status, r.body)
	}
}

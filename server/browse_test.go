package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

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
	if !strings.Contains(w.log.String(), `"error":"invalid-line"`) {
		t.Errorf("the request log does not label the bad line invalid-line: %s", w.log.String())
	}
	// A chunked body of many batches: the progress lines go out while the body is read (full
	// duplex; without it net/http drained the body at the first progress line and the load
	// stopped a few hundred kilobytes in, "invalid Read on closed Body").
	var long strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&long, `{"type": "memory", "id": "long-%d", "text": "shipment %d of spare parts for the harbor crane reached dock %d on time"}`+"\n", i, i, i%7)
	}
	r = w.do(t, "POST", "/v1/ingest?batch=500&scope=team", w.keys["ana"], struct{ io.Reader }{strings.NewReader(long.String())})
	if last := lastProgress(t, r.body); r.status != 200 || !last.Done || last.Lines != 3000 || last.Result.Memories != 3000 {
		t.Fatalf("a chunked body of 3,000 lines (%d bytes): %d %s", long.Len(), r.status, r.body)
	}
	if r := w.do(t, "POST", "/v1/ingest?format=csv", w.keys["ana"], []byte("x")); r.status != http.StatusBadRequest || r.problem(t).Errors[0].Field != "format" {
		t.Fatalf("format csv: %d %s", r.status, r.body)
	}
	if r := w.do(t, "POST", "/v1/ingest?scope=other", w.keys["ana"], []byte("{}")); r.status != http.StatusForbidden {
		t.Fatalf("ingest into another's scope: %d %s", r.status, r.body)
	}
}

// TestIngestOverTheLimit: a body declared longer than --max-body is refused with 413 before
// anything is written; a chunked body cut by the limit ends with an error that says so and
// names the last line written (the whole lines before the cut are), and the request log
// labels it too-large, not internal. Sending the rest from the next line completes the load.
func TestIngestOverTheLimit(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	alt := *w
	const limit = 4096
	alt.url = serveWith(t, w, server.Config{MaxBody: limit})
	var body strings.Builder
	var lineAt []int // each line's first byte
	for i := range 80 {
		lineAt = append(lineAt, body.Len())
		body.WriteString(fmt.Sprintf(`{"speaker": "Ana", "text": "cut turn number %d of the long chat", "conversation": "cut", "date": "2024-03-01"}`+"\n", i+1))
	}
	countCut := func() int {
		var n int
		if err := w.db.Owner.QueryRow(context.Background(), `SELECT count(*) FROM recall.memories WHERE text LIKE 'cut turn number %'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Declared: Content-Length over the limit.
	r := alt.do(t, "POST", "/v1/ingest?batch=10&scope=team", w.keys["ana"], []byte(body.String()))
	if r.status != http.StatusRequestEntityTooLarge || r.problem(t).Type != "urn:recall:problem:too-large" || countCut() != 0 {
		t.Fatalf("a declared %d-byte body over %d: %d %s, %d stored", body.Len(), limit, r.status, r.body, countCut())
	}
	// Chunked: cut by the limit while it is read.
	r = alt.do(t, "POST", "/v1/ingest?batch=10&scope=team", w.keys["ana"], struct{ io.Reader }{strings.NewReader(body.String())})
	last := lastProgress(t, r.body)
	whole := 0 // the lines wholly inside the limit
	for i, at := range lineAt {
		if i+1 < len(lineAt) && lineAt[i+1] <= limit {
			whole = i + 1
		} else if at < limit {
			break
		}
	}
	e := last.Error
	if r.status != http.StatusOK || last.Done || e == nil || e.LastWritten != whole || e.Line != whole+1 ||
		!strings.Contains(e.Problem, "server's limit") || !strings.Contains(e.Problem, fmt.Sprintf("from line %d", whole+1)) {
		t.Fatalf("a chunked body cut at %d bytes (%d whole lines): %d %s", limit, whole, r.status, r.body)
	}
	if n := countCut(); n != whole {
		t.Fatalf("%d memories stored, want the %d whole lines", n, whole)
	}
	if !strings.Contains(w.log.String(), `"error":"too-large"`) {
		t.Errorf("the request log does not label the cut too-large: %s", w.log.String())
	}
	// Resumed with ?from_line from the line after the last written, again and again: every
	// turn once, with the id and the place the whole file gives it (a turn without them takes
	// its line in the file as its id, and the next place of its conversation).
	from := whole
	for tries := 0; from < len(lineAt); tries++ {
		if tries == 5 {
			t.Fatalf("not done after %d resumes, at line %d", tries, from)
		}
		r := alt.do(t, "POST", fmt.Sprintf("/v1/ingest?batch=10&scope=team&from_line=%d", from+1), w.keys["ana"], struct{ io.Reader }{strings.NewReader(body.String()[lineAt[from]:])})
		last := lastProgress(t, r.body)
		if last.Done {
			break
		}
		if last.Error == nil || last.Error.LastWritten <= from {
			t.Fatalf("resumed at line %d: %d %s", from+1, r.status, r.body)
		}
		from = last.Error.LastWritten
	}
	rows, err := w.db.Owner.Query(context.Background(), `SELECT external_id || ' ' || position || ' ' || text FROM recall.memories WHERE text LIKE 'cut turn number %' ORDER BY position`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(lineAt) {
		t.Fatalf("%d memories after resuming, want %d", len(got), len(lineAt))
	}
	for i, g := range got {
		if want := fmt.Sprintf("cut:%d %d cut turn number %d of the long chat", i+1, i+1, i+1); g != want {
			t.Fatalf("after resuming: %q, want %q", g, want)
		}
	}
}

// lastProgress is the last line of an ingest's answer.
func lastProgress(t *testing.T, body []byte) server.IngestProgress {
	t.Helper()
	var last server.IngestProgress
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		last = server.IngestProgress{}
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
	}
	return last
}

package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/server"
)

// serveWith starts another server over w's engine with cfg's limits on a loopback port and
// returns its URL.
func serveWith(t *testing.T, w *world, cfg server.Config) string {
	t.Helper()
	cfg.Engine, cfg.Keys, cfg.Pool, cfg.Ready = w.engine, w.db.Runtime, w.db.Runtime, w.engine.Ready
	cfg.Logger = slog.New(slog.NewJSONHandler(w.log, nil))
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, 5*time.Second) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// TestCancelledStatementsAre504: a statement stopped at the server's deadline (here, waiting
// on a lock held elsewhere) answers 504 on every route that runs one, never 500; in the
// library the error wraps the context's; nothing was written.
func TestCancelledStatementsAre504(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	alt := *w
	alt.url = serveWith(t, w, server.Config{WriteTimeout: 200 * time.Millisecond, RecallTimeout: 200 * time.Millisecond})
	lock := lockMemories(t, w, "ACCESS EXCLUSIVE")
	batch := map[string]any{"memories": []any{map[string]any{"id": "late", "text": "A memory written past the deadline."}}}
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/v1/memories", batch},
		{"DELETE", "/v1/memories", map[string]any{"ids": []string{"team-1"}}},
		{"POST", "/v1/recall", map[string]any{"query": "crane", "budget": 100}},
		{"POST", "/v1/trace", map[string]any{"query": "crane", "budget": 100}},
		{"POST", "/v1/summarize", map[string]any{}},
	} {
		r := alt.do(t, c.method, c.path, w.keys["ana"], c.body)
		if r.status != http.StatusGatewayTimeout {
			t.Errorf("%s %s under a held lock: %d %s, want 504", c.method, c.path, r.status, r.body)
		}
	}
	short, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	defer cancel()
	ana := recall.User{ID: "ana", Read: []string{"team"}, Write: []string{"team"}}
	_, err := w.engine.Write(short, ana, recall.Batch{Memories: []recall.Memory{{ID: "late", Text: "Too late."}}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a write under a held lock: %v, want the deadline", err)
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := w.db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.memories WHERE external_id = 'late'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d memories 'late' written: %v", n, err)
	}
}

// TestReadOnlyDatabase: a write to a read-only database is ErrReadOnly in the library (which
// the server answers 503 with Retry-After), not a raw SQLSTATE; recalls still answer.
func TestReadOnlyDatabase(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	if _, err := db.Owner.Exec(ctx, fmt.Sprintf(`ALTER DATABASE %q SET default_transaction_read_only = on`, db.Name)); err != nil {
		t.Fatal(err)
	}
	pool, err := testdb.NewPool(ctx, testdb.AdminConfig(t), "recall_runtime", db.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	e, err := recall.New(ctx, recall.Config{Pool: pool, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	u := recall.User{ID: "u", Read: []string{"team"}, Write: []string{"team"}}
	_, err = e.Write(ctx, u, recall.Batch{Memories: []recall.Memory{{ID: "m", Text: "a note"}}})
	if !errors.Is(err, recall.ErrReadOnly) {
		t.Fatalf("a write to a read-only database: %v, want ErrReadOnly", err)
	}
	if _, err := e.Recall(ctx, u, "a note", 100, nil); err != nil {
		t.Fatalf("a recall on a read-only database: %v", err)
	}
}

// TestLostConnectionIs503: a request whose database connection is lost mid-statement (its
// backend terminated, as a restart or pg_terminate_backend does) answers 503 with
// Retry-After and the problem type "unavailable", never 500; a write so cut stored nothing.
func TestLostConnectionIs503(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	lock := lockMemories(t, w, "ACCESS EXCLUSIVE")
	// Only a superuser (or pg_read_all_stats) sees what another role's backend waits on.
	admin, err := pgx.ConnectConfig(ctx, testdb.AdminConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	batch := map[string]any{"memories": []any{map[string]any{"id": "cut", "text": "A memory whose connection was lost."}}}
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/v1/recall", map[string]any{"query": "crane", "budget": 100}},
		{"POST", "/v1/memories", batch},
		{"DELETE", "/v1/memories", map[string]any{"ids": []string{"team-1"}}},
	} {
		got := make(chan response, 1)
		go func() { got <- w.do(t, c.method, c.path, w.keys["ana"], c.body) }()
		// The request's backend waits on the lock: terminate it.
		deadline := time.Now().Add(10 * time.Second)
		for {
			var n int
			err := admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE datname = $1 AND usename = 'recall_runtime' AND wait_event_type = 'Lock'`, w.db.Name).Scan(&n)
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s %s: no backend waited on the lock", c.method, c.path)
			}
			time.Sleep(5 * time.Millisecond)
		}
		r := <-got
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "1" {
			t.Errorf("%s %s with its backend terminated: %d (Retry-After %q) %s, want 503 with Retry-After 1",
				c.method, c.path, r.status, r.header.Get("Retry-After"), r.body)
			continue
		}
		if p := r.problem(t); p.Type != "urn:recall:problem:unavailable" {
			t.Errorf("%s %s: problem %q, want unavailable", c.method, c.path, p.Type)
		}
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := w.db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.memories WHERE external_id = 'cut'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d memories 'cut' written: %v", n, err)
	}
	if err := w.db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.memories WHERE external_id = 'team-1'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the delete cut off deleted team-1 (%d left): %v", n, err)
	}
	// The server answers again once the lock is gone: the pool replaced what it lost.
	if r := w.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": "crane", "budget": 100}); r.status != http.StatusOK {
		t.Fatalf("a recall after the cuts: %d %s", r.status, r.body)
	}
}

// TestWriteTimeoutBoundsTheRequest: --write-timeout bounds a write from its request's
// arrival: a batch that takes far longer to embed and store than the limit is answered 504
// and nothing of it is stored; a body that trickles in past the limit is answered 504 near the
// limit, not after the whole body has come.
func TestWriteTimeoutBoundsTheRequest(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const limit = 400 * time.Millisecond
	alt := *w
	alt.url = serveWith(t, w, server.Config{WriteTimeout: limit})
	var mems []any
	text := strings.Repeat("Ana met Bob in Paris to talk about the crane project, its budget and its people. ", 4)
	for i := range 20000 {
		mems = append(mems, map[string]any{"id": "slow-" + strconv.Itoa(i), "text": text + strconv.Itoa(i)})
	}
	body, err := json.Marshal(map[string]any{"memories": mems})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := alt.do(t, "POST", "/v1/memories", w.keys["ana"], body)
	took := time.Since(start)
	t.Logf("a %d-byte batch answered %d after %s", len(body), r.status, took)
	if r.status != http.StatusGatewayTimeout {
		t.Fatalf("a %d-byte batch under a %s write timeout: %d %s, want 504", len(body), limit, r.status, r.body)
	}
	// (Its time is not asserted: decoding a body this size is not interruptible and takes
	// what the machine gives it; the trickle below tells the fix apart.)
	// A slow client: the body trickles in over ten times the limit. Its reading counts
	// against the limit (it was not counted before: the answer came after the whole body).
	start = time.Now()
	r = alt.do(t, "POST", "/v1/memories", w.keys["ana"], &trickle{b: body[:4096], pause: 10 * limit / 64})
	took = time.Since(start)
	t.Logf("a body trickled over %s answered %d after %s", 10*limit, r.status, took)
	if r.status != http.StatusGatewayTimeout || took > 4*limit {
		t.Errorf("a body trickled over %s under a %s write timeout: %d after %s %s, want 504 within %s", 10*limit, limit, r.status, took, r.body, 4*limit)
	}
	var n int
	if err := w.db.Owner.QueryRow(context.Background(), `SELECT count(*) FROM recall.memories WHERE external_id LIKE 'slow-%'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d memories of the timed-out batches stored: %v", n, err)
	}
}

// trickle reads b in 64 pieces, pausing before each.
type trickle struct {
	b     []byte
	pause time.Duration
	sent  int
}

func (r *trickle) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	time.Sleep(r.pause)
	n := copy(p, r.b[:min(len(r.b), max(1, (len(r.b)+r.sent)/64+1))])
	r.b, r.sent = r.b[n:], r.sent+n
	return n, nil
}

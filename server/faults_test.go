package server_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

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
	lock, err := w.db.Owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(ctx) //nolint:errcheck // released at the end
	if _, err := lock.Exec(ctx, `LOCK TABLE recall.memories IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
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
	_, err = w.engine.Write(short, ana, recall.Batch{Memories: []recall.Memory{{ID: "late", Text: "Too late."}}})
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

package server_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lockMemories takes recall.memories in mode (SHARE: writes wait, reads go on; ACCESS
// EXCLUSIVE: both wait) as the owner, in a transaction the caller rolls back to release it
// (rolled back at the test's end too).
func lockMemories(t *testing.T, w *world, mode string) pgx.Tx {
	t.Helper()
	ctx := context.Background()
	lock, err := w.db.Owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Rollback(ctx) })
	if _, err := lock.Exec(ctx, `LOCK TABLE recall.memories IN `+mode+` MODE`); err != nil {
		t.Fatal(err)
	}
	return lock
}

// waitOnMemories waits until n requests wait on recall.memories' lock. On a loaded machine
// they can take seconds to reach it: 45 s at most (well inside the tests' write timeouts).
func waitOnMemories(t *testing.T, w *world, n int) {
	t.Helper()
	for start, waiting := time.Now(), 0; waiting < n; time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 45*time.Second {
			t.Fatalf("after 45 s, %d of %d requests wait on the lock of recall.memories", waiting, n)
		}
		if err := w.db.Owner.QueryRow(context.Background(),
			`SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'recall.memories'::regclass`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
}

// mcpSessionAt connects an MCP client to url's /mcp with key (no retries: a refused call is
// an answer here), closed at the test's end.
func mcpSessionAt(t *testing.T, url, key string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: url + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{key}}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

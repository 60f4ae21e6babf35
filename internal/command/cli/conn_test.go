package cli

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestEnsureDatabaseConcurrent runs many creators of one new database at once, as two
// aizk-eval runs of one dataset do: every one must succeed and find both extensions.
// (Without the lock around CREATE EXTENSION, some fail on pg_extension's unique index.)
func TestEnsureDatabaseConcurrent(t *testing.T) {
	testdb.AdminConfig(t)
	admin := os.Getenv(testdb.EnvURL)
	ctx := context.Background()
	name := fmt.Sprintf("cli_ensure_%d", time.Now().UnixNano())
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close(ctx) //nolint:errcheck // closing a session
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	const n = 8
	urls := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			urls[i], errs[i] = ensureDatabase(ctx, admin, name, "")
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("creator %d: %v", i, err)
		}
	}
	c, err := pgx.Connect(ctx, urls[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx) //nolint:errcheck // closing a session
	var got int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_extension WHERE extname IN ('vector', 'pg_trgm')`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != 2 {
		t.Fatalf("extensions: %d, want 2", got)
	}
}

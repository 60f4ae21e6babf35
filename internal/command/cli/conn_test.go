package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestRunningFastPath: a command on the embedded server skips db.sh and the migrations when
// the server named by the port file answers and the schema is current, and only then.
func TestRunningFastPath(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	cfg := testdb.AdminConfig(t)
	home := t.TempDir()
	env := Env{Getenv: func(k string) string {
		if k == "RECALL_HOME" {
			return home
		}
		return ""
	}}
	if _, ok := env.running(ctx, db.Name, true); ok {
		t.Fatal("fast path without a port file")
	}
	if err := os.MkdirAll(filepath.Join(home, "pg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "pg", "port"), []byte(fmt.Sprintf("%d\n", cfg.Port)), 0o644); err != nil {
		t.Fatal(err)
	}
	u, ok := env.running(ctx, db.Name, true)
	if !ok || !strings.Contains(u, fmt.Sprintf("recall_owner@127.0.0.1:%d/%s", cfg.Port, db.Name)) {
		t.Fatalf("fast path on a current database: %q, %v", u, ok)
	}
	c, err := env.ConnectDatabase(ctx, db.Name, true)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := os.Stat(filepath.Join(home, "pg", "data")); !os.IsNotExist(err) {
		t.Fatalf("db.sh ran (a data directory was made): %v", err)
	}
	if _, ok := env.running(ctx, "no_such_database_here", false); ok {
		t.Fatal("fast path to a missing database")
	}
	// A function changed by hand: the migrations are not current, so the full path runs.
	if _, err := db.Owner.Exec(ctx, `CREATE OR REPLACE FUNCTION recall.scope_tokens(scopes text[], keys text[]) RETURNS text[]
		LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT keys $$`); err != nil {
		t.Fatal(err)
	}
	if _, ok := env.running(ctx, db.Name, true); ok {
		t.Fatal("fast path although a function file needs applying")
	}
	if _, ok := env.running(ctx, db.Name, false); !ok {
		t.Fatal("no fast path for a command that does not migrate")
	}
}

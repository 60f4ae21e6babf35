package recall_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// runtimeBackends lists the server processes of db's runtime connections.
func runtimeBackends(t *testing.T, owner *pgxpool.Pool) map[int32]string {
	t.Helper()
	rows, err := owner.Query(context.Background(), `SELECT pid, usename FROM pg_stat_activity
		WHERE datname = current_database() AND usename = 'recall_runtime'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int32]string{}
	for rows.Next() {
		var pid int32
		var user string
		if err := rows.Scan(&pid, &user); err != nil {
			t.Fatal(err)
		}
		out[pid] = user
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCancelledRecallKeepsTheConnection: a recall whose deadline passes while its statement
// waits on the server is cancelled on the server (it stops waiting at once, not when the
// statement would have finished), the connection returns to the pool, and the next
// recall succeeds on that same warm connection, the recall statement still prepared on it
// as it was (pgx's own cache would have dropped it with the failed query, and the next recall
// would have prepared and planned it again). Read from pg_prepared_statements, not timed: a
// time bound on the next recall (four warm recalls) failed a CI run by half a millisecond.
func TestCancelledRecallKeepsTheConnection(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	// Fresh statistics now, so that no autoanalyze of the new rows invalidates the plans
	// mid-test (a replan would be measured, not the connection).
	if _, err := b.db.Owner.Exec(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	e, err := recall.Open(ctx, b.db.URL("recall_runtime"), recall.Config{Embedder: b.emb, Now: func() time.Time { return now }},
		recall.PoolOptions{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for range 5 {
		if _, err := e.Recall(ctx, member, "crane inspection", 500, nil); err != nil {
			t.Fatal(err)
		}
	}
	prepared := recallPrepared(t, e)
	if len(prepared) == 0 {
		t.Fatal("no recall statement prepared on the connection after five recalls")
	}
	before := runtimeBackends(t, b.db.Owner)
	if len(before) != 1 {
		t.Fatalf("%d runtime connections, want the pool's one", len(before))
	}

	// Hold the memories so the next statement waits on the server until its deadline.
	lock, err := b.db.Owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(ctx) //nolint:errcheck // released below
	if _, err := lock.Exec(ctx, `LOCK TABLE recall.memories IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = e.Recall(short, member, "crane inspection", 500, nil)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("recall under a held lock: %v, want the deadline", err)
	}
	// The server stopped the statement although the lock is still held.
	after := runtimeBackends(t, b.db.Owner)
	if !slices.Equal(sortedKeys(after), sortedKeys(before)) {
		t.Fatalf("runtime connections %v, want the same one as before, %v", after, before)
	}
	// Recall returned at its deadline; the cancel it sent stops the statement on the server
	// within the cancel's round trip.
	waiting := -1
	for deadline := time.Now().Add(10 * time.Second); waiting != 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if err := b.db.Owner.QueryRow(ctx, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity s USING (pid)
			WHERE NOT l.granted AND s.datname = current_database() AND s.usename = 'recall_runtime'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if waiting != 0 {
		t.Fatalf("%d lock waits of the runtime connection 10 s after the cancel: the statement still runs", waiting)
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	// The cancelled recall's connection comes back to the pool once its statement stopped.
	for deadline := time.Now().Add(10 * time.Second); e.Pool().Stat().IdleConns() == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	if n := e.Pool().Stat().IdleConns(); n != 1 {
		t.Fatalf("%d idle connections 10 s after the cancel, want the pool's one back", n)
	}

	p, err := e.Recall(ctx, member, "who inspected the cranes", 500, nil)
	if err != nil {
		t.Fatalf("the recall after a cancelled one: %v", err)
	}
	if len(p.Items) == 0 {
		t.Fatal("the recall after a cancelled one packed nothing")
	}
	if got := runtimeBackends(t, b.db.Owner); !slices.Equal(sortedKeys(got), sortedKeys(before)) {
		t.Fatalf("runtime connections %v after, want %v", got, before)
	}
	if got := recallPrepared(t, e); !slices.Equal(got, prepared) {
		t.Fatalf("recall statements prepared on the connection after the cancel: %v, before it: %v", got, prepared)
	}
}

// recallPrepared lists the recall statements (WITH RECURSIVE ...) prepared on the connection
// of e's pool of one, each by name and the time it was prepared (a statement dropped and
// prepared again under the same name, as pgx's cache does, shows a later time).
func recallPrepared(t *testing.T, e *recall.Engine) []string {
	t.Helper()
	ctx := context.Background()
	c, err := e.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	rows, err := c.Query(ctx, `SELECT name || ' prepared at ' || prepare_time FROM pg_prepared_statements
		WHERE statement LIKE 'WITH RECURSIVE%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func sortedKeys(m map[int32]string) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestOpenRefusesAPool: Open makes its own pool.
func TestOpenRefusesAPool(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if _, err := recall.Open(context.Background(), b.db.URL("recall_runtime"), recall.Config{Pool: b.db.Runtime}, recall.PoolOptions{}); err == nil {
		t.Fatal("Open with Config.Pool set: no error")
	}
}

// TestNewSaysWhatIsWrong: recall.New tells the usual first failures apart.
func TestNewSaysWhatIsWrong(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := testdb.AdminConfig(t)
	pool := func(t *testing.T, url string) *pgxpool.Pool {
		t.Helper()
		p, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		return p
	}
	free := func() int { // a loopback port nothing listens on
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port
	}()
	_, empty := testdb.NewEmpty(t)
	emptyPool, err := testdb.NewPool(ctx, admin, "recall_runtime", empty)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emptyPool.Close)
	// A migrated database whose function was changed by hand: migrations not applied since.
	behind := testdb.New(t)
	if _, err := behind.Owner.Exec(ctx, `CREATE OR REPLACE FUNCTION recall.scope_tokens(scopes text[], keys text[]) RETURNS text[]
		LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT keys $$`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pool *pgxpool.Pool
		is   error
		want string
	}{
		{"nothing listens", pool(t, fmt.Sprintf("postgres://recall_runtime@127.0.0.1:%d/x?sslmode=disable&connect_timeout=5", free)), nil, "cannot connect to the database"},
		{"no such database", pool(t, fmt.Sprintf("postgres://recall_runtime@%s:%d/no_such_db_here?sslmode=disable", admin.Host, admin.Port)), nil, "no such database"},
		{"no schema", emptyPool, recall.ErrSchema, "recall migrate up"},
		{"functions behind", behind.Runtime, recall.ErrSchema, "recall.scope_tokens differ"},
		{"owner role", behind.Owner, recall.ErrUnsafeRole, "bypasses row security"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := recall.New(ctx, recall.Config{Pool: tc.pool})
			if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %v containing %q", err, tc.is, tc.want)
			}
		})
	}
}

// TestEmptyURL: an empty database URL (an unset RECALL_RUNTIME_URL) is ErrNoURL, which says
// which variable to set, not a failure to reach the local socket.
func TestEmptyURL(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"", "  "} {
		_, err := recall.Open(context.Background(), url, recall.Config{}, recall.PoolOptions{})
		if !errors.Is(err, recall.ErrNoURL) || !strings.Contains(err.Error(), "RECALL_RUNTIME_URL") {
			t.Errorf("Open(%q): %v, want ErrNoURL naming RECALL_RUNTIME_URL", url, err)
		}
	}
}

// TestNoVectorExtension: a database where no superuser ran CREATE EXTENSION vector gets
// ErrNoVector from Open, which says what to run; once it is run the same Open gets past it
// (to the missing schema).
func TestNoVectorExtension(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin, name := testdb.NewEmpty(t)
	exec := func(sql string) {
		t.Helper()
		cfg := admin.Copy()
		cfg.Database = name
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx) //nolint:errcheck // closing a session
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec(`DROP EXTENSION vector`)
	url := fmt.Sprintf("postgres://recall_runtime@%s:%d/%s?sslmode=disable", admin.Host, admin.Port, name)
	_, err := recall.Open(ctx, url, recall.Config{}, recall.PoolOptions{})
	if !errors.Is(err, recall.ErrNoVector) || !strings.Contains(err.Error(), "CREATE EXTENSION vector") || !strings.Contains(err.Error(), name) {
		t.Fatalf("Open without pgvector: %v, want ErrNoVector naming the database and what to run", err)
	}
	exec(`CREATE EXTENSION vector`)
	_, err = recall.Open(ctx, url, recall.Config{}, recall.PoolOptions{})
	if errors.Is(err, recall.ErrNoVector) || !errors.Is(err, recall.ErrSchema) {
		t.Fatalf("Open with pgvector, no schema: %v, want ErrSchema", err)
	}
}

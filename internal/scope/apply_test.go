package scope_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestApply: the settings land as the exact arrays the policies read, JIT is off for the
// transaction, a setting for one server is applied on one, and a write scope outside the read
// scopes is refused before touching the server.
func TestApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.Shared(t)
	tx, err := db.Runtime.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(ctx) })

	read, _ := scope.Normalize("read", []string{"ops:eu", "acme", "a@b"})
	write, _ := scope.Normalize("write", []string{"acme"})
	if err := scope.Apply(ctx, tx, read, write, scope.Setting{Name: "enable_seqscan", Value: "off", OneServer: true}); err != nil {
		t.Fatal(err)
	}
	var r, w []string
	var jit, seq string
	if err := tx.QueryRow(ctx, `SELECT recall.read_scopes(), recall.write_scopes(), current_setting('jit'), current_setting('enable_seqscan')`).Scan(&r, &w, &jit, &seq); err != nil {
		t.Fatal(err)
	}
	if len(r) != 3 || r[0] != "a@b" || r[1] != "acme" || r[2] != "ops:eu" || len(w) != 1 || w[0] != "acme" || jit != "off" || seq != "off" {
		t.Fatalf("read %q write %q jit %s enable_seqscan %s (a setting for one server)", r, w, jit, seq)
	}

	var se *scope.Error
	if err := scope.Apply(ctx, tx, []string{"acme"}, []string{"beta"}); !errors.As(err, &se) || se.Field != "write_scopes" {
		t.Fatalf("write scope outside read scopes: %v", err)
	}
}

// TestQueue: on a connection Apply has not run on, Queue queues nothing; after, the batch's
// statements run as the caller with JIT off and read only (a write fails with SQLSTATE
// 25006), and nothing of it stays on the connection.
func TestQueue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.Shared(t)
	conn, err := pgx.ConnectConfig(ctx, db.Runtime.Config().ConnConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(ctx) })
	read, _ := scope.Normalize("read", []string{"acme", "ops:eu"})
	write, _ := scope.Normalize("write", []string{"acme"})

	if ok, err := scope.Queue(conn, &pgx.Batch{}, read, write); ok || err != nil {
		t.Fatalf("a new connection: queued %v, err %v; want nothing queued", ok, err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := scope.Apply(ctx, tx, read, write); err != nil {
		t.Fatal(err)
	}
	_ = tx.Rollback(ctx)

	b := &pgx.Batch{}
	if ok, err := scope.Queue(conn, b, read, write, scope.Setting{Name: "enable_seqscan", Value: "off", OneServer: true}); !ok || err != nil {
		t.Fatalf("after Apply: queued %v, err %v", ok, err)
	}
	var r, w []string
	var jit, seq, ro string
	b.Queue(`SELECT recall.read_scopes(), recall.write_scopes(), current_setting('jit'), current_setting('enable_seqscan'), current_setting('transaction_read_only')`).
		QueryRow(func(row pgx.Row) error { return row.Scan(&r, &w, &jit, &seq, &ro) })
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if len(r) != 2 || r[0] != "acme" || r[1] != "ops:eu" || len(w) != 1 || w[0] != "acme" || jit != "off" || seq != "off" || ro != "on" {
		t.Fatalf("in the batch: read %q write %q jit %s enable_seqscan %s transaction_read_only %s", r, w, jit, seq, ro)
	}

	b = &pgx.Batch{}
	if _, err := scope.Queue(conn, b, read, write); err != nil {
		t.Fatal(err)
	}
	b.Queue(`CREATE TEMP TABLE queued_write (a int)`)
	var pe *pgconn.PgError
	if err := conn.SendBatch(ctx, b).Close(); !errors.As(err, &pe) || pe.Code != "25006" {
		t.Fatalf("a write in the batch: %v, want SQLSTATE 25006 (read-only transaction)", err)
	}
	var after string
	if err := conn.QueryRow(ctx, `SELECT coalesce(current_setting('recall.read_scopes', true), '') || current_setting('transaction_read_only')`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != "off" && after != "{}off" {
		t.Fatalf("after the batches the connection holds %q; want no scopes, read-write", after)
	}

	var se *scope.Error
	if _, err := scope.Queue(conn, &pgx.Batch{}, []string{"acme"}, []string{"beta"}); !errors.As(err, &se) || se.Field != "write_scopes" {
		t.Fatalf("write scope outside read scopes: %v", err)
	}
}

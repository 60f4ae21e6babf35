// Package testdb gives tests real Postgres databases with recall's schema, on the server named
// by TEST_DATABASE_URL (an admin URL: a superuser, or a role with CREATEDB and CREATEROLE).
// `make test` starts a private server and sets it.
//
// One migrated template database is built per migration hash, once, under an advisory lock,
// so parallel test binaries share it. New clones it (CREATE DATABASE ... TEMPLATE) for a test
// that commits; Tx hands a read-mostly test a transaction on a shared clone that is rolled back.
// When the server cannot be reached, tests skip, except under CI (CI set), where they fail.
//
// Only tests import this package.
package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/migrations"
	"github.com/recall-engine/recall/sql"
)

// EnvURL names the environment variable holding the admin URL of the test server.
const EnvURL = "TEST_DATABASE_URL"

// Role names, as created by sql/roles.sql.
const (
	OwnerRole   = "recall_owner"
	RuntimeRole = "recall_runtime"
)

// DB is one database with recall's schema.
type DB struct {
	Name    string
	Owner   *pgxpool.Pool // recall_owner: owns the schema; row security does not apply to it
	Runtime *pgxpool.Pool // recall_runtime: what the engine runs as; always under row security
	admin   *pgx.ConnConfig
}

var (
	serverOnce sync.Once
	serverCfg  *pgx.ConnConfig
	serverErr  error

	templateOnce sync.Once
	templateName string
	templateErr  error

	sharedOnce sync.Once
	sharedDB   *DB
	sharedErr  error
)

// AdminConfig returns the admin connection config, skipping the test (or failing it under CI)
// when no server is configured or reachable.
func AdminConfig(t testing.TB) *pgx.ConnConfig {
	t.Helper()
	serverOnce.Do(func() { serverCfg, serverErr = connectAdmin() })
	if serverErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("testdb: %v (CI is set, so this fails instead of skipping)", serverErr)
		}
		t.Skipf("testdb: %v", serverErr)
	}
	return serverCfg.Copy()
}

func connectAdmin() (*pgx.ConnConfig, error) {
	url := os.Getenv(EnvURL)
	if url == "" {
		return nil, fmt.Errorf("%s is not set; run the tests with 'make test', or point it at a server (admin URL)", EnvURL)
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvURL, err)
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > 5*time.Second {
		cfg.ConnectTimeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the test server at %s:%d (%w); start it with 'make db'", cfg.Host, cfg.Port, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sqltext.Roles); err != nil {
		return nil, fmt.Errorf("creating roles on the test server: %w", err)
	}
	return cfg, nil
}

func roleConfig(admin *pgx.ConnConfig, role, database string) *pgx.ConnConfig {
	c := admin.Copy()
	c.User = role
	c.Database = database
	return c
}

// NewPool opens a pool on database as role, with pgvector types registered.
func NewPool(ctx context.Context, admin *pgx.ConnConfig, role, database string) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig("")
	if err != nil {
		return nil, err
	}
	pc.ConnConfig = roleConfig(admin, role, database)
	pc.MaxConns = 16
	pc.AfterConnect = pgxvec.RegisterTypes
	return pgxpool.NewWithConfig(ctx, pc)
}

func withAdmin(ctx context.Context, admin *pgx.ConnConfig, database string, fn func(*pgx.Conn) error) error {
	c := admin.Copy()
	c.Database = database
	conn, err := pgx.ConnectConfig(ctx, c)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return fn(conn)
}

// Migrate runs every migration up on database as the owner role.
func Migrate(ctx context.Context, admin *pgx.ConnConfig, database string) error {
	db := stdlib.OpenDB(*roleConfig(admin, OwnerRole, database))
	defer db.Close()
	_, err := migrations.Up(ctx, db)
	return err
}

// OpenSQL opens a database/sql handle on database as role (for goose).
func OpenSQL(admin *pgx.ConnConfig, role, database string) *sql.DB {
	return stdlib.OpenDB(*roleConfig(admin, role, database))
}

// New returns a fresh migrated database for t, dropped when t ends.
func New(t testing.TB) *DB {
	t.Helper()
	admin := AdminConfig(t)
	ctx := context.Background()
	db, err := clone(ctx, admin, randomName("recall_test_"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		if err := dropDatabase(context.Background(), admin, db.Name); err != nil {
			t.Errorf("testdb: drop %s: %v", db.Name, err)
		}
	})
	return db
}

// NewEmpty returns a database with the extensions but no migrations, dropped when t ends.
func NewEmpty(t testing.TB) (admin *pgx.ConnConfig, name string) {
	t.Helper()
	admin = AdminConfig(t)
	ctx := context.Background()
	name = randomName("recall_empty_")
	if err := createEmpty(ctx, admin, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := dropDatabase(context.Background(), admin, name); err != nil {
			t.Errorf("testdb: drop %s: %v", name, err)
		}
	})
	return admin, name
}

// Shared returns a migrated database shared by the tests of every test binary built from the
// same migrations. Tests must not commit to it: use Tx.
func Shared(t testing.TB) *DB {
	t.Helper()
	admin := AdminConfig(t)
	sharedOnce.Do(func() { sharedDB, sharedErr = shared(context.Background(), admin) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedDB
}

// Tx begins a transaction as recall_runtime on the shared database with the given scopes
// applied, and rolls it back when t ends. read and write are normalized here.
func Tx(t testing.TB, read, write []string) pgx.Tx {
	t.Helper()
	return beginAs(t, Shared(t).Runtime, read, write)
}

// BeginAs begins a transaction on pool with the caller's scopes applied, rolled back when t
// ends unless committed first.
func BeginAs(t testing.TB, pool *pgxpool.Pool, read, write []string) pgx.Tx {
	t.Helper()
	return beginAs(t, pool, read, write)
}

func beginAs(t testing.TB, pool *pgxpool.Pool, read, write []string) pgx.Tx {
	t.Helper()
	ctx := context.Background()
	r, err := scope.Normalize("read_scopes", read)
	if err != nil {
		t.Fatal(err)
	}
	w, err := scope.Normalize("write_scopes", write)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	if err := scope.Apply(ctx, tx, r, w); err != nil {
		t.Fatal(err)
	}
	return tx
}

// Persistent returns a database kept across runs for benchmarks: the first call on a server
// clones the template into a scratch database, fills it with fill, and renames it to
// recall_bench_<name>_<migration hash>; later calls (and later runs) reuse it. fill must
// leave the database complete: a failed or interrupted fill leaves only the scratch database,
// which the next call drops. It is dropped when the migrations change or by make db-clean.
// Tests must not change it.
func Persistent(t testing.TB, name string, fill func(*DB) error) *DB {
	t.Helper()
	admin := AdminConfig(t)
	ctx := context.Background()
	final := "recall_bench_" + name + "_" + migrations.Hash()[:16]
	building := "recall_build_" + name
	if len(final) > 63 {
		t.Fatalf("testdb: database name %q is over 63 bytes", final)
	}
	err := withAdmin(ctx, admin, admin.Database, func(c *pgx.Conn) error {
		if _, err := c.Exec(ctx, "SELECT pg_advisory_lock(hashtext($1))", final); err != nil {
			return err
		}
		defer c.Exec(context.Background(), "SELECT pg_advisory_unlock(hashtext($1))", final) //nolint:errcheck // the session ends right after
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", final).Scan(&n); err != nil {
			return err
		}
		if n == 1 {
			return nil
		}
		if err := dropDatabase(ctx, admin, building); err != nil {
			return err
		}
		db, err := clone(ctx, admin, building)
		if err != nil {
			return err
		}
		err = fill(db)
		db.Close()
		if err != nil {
			return fmt.Errorf("filling %s: %w", building, err)
		}
		_, err = c.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s",
			pgx.Identifier{building}.Sanitize(), pgx.Identifier{final}.Sanitize()))
		return err
	})
	if err != nil {
		t.Fatalf("testdb: persistent database %s: %v", final, err)
	}
	db, err := open(ctx, admin, final)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// ForExample returns a fresh migrated database for an Example function, which has no
// testing.T: it panics when the server named by TEST_DATABASE_URL cannot be reached (make
// test starts one). Call the returned function to drop the database.
func ForExample() (*DB, func()) {
	admin, err := connectAdmin()
	if err != nil {
		panic("examples need a Postgres server (make test starts one): " + err.Error())
	}
	ctx := context.Background()
	db, err := clone(ctx, admin, randomName("recall_example_"))
	if err != nil {
		panic(err)
	}
	return db, func() {
		db.Close()
		_ = dropDatabase(context.Background(), admin, db.Name)
	}
}

// URL returns a connection URL for db as role (the test server trusts loopback logins).
func (db *DB) URL(role string) string {
	u := url.URL{Scheme: "postgres", User: url.User(role), Host: fmt.Sprintf("%s:%d", db.admin.Host, db.admin.Port),
		Path: "/" + db.Name, RawQuery: "sslmode=disable"}
	return u.String()
}

// OwnerSQL opens a database/sql handle on d as the owner (for migrations' functions); the
// caller closes it.
func (d *DB) OwnerSQL() *sql.DB { return OpenSQL(d.admin, OwnerRole, d.Name) }

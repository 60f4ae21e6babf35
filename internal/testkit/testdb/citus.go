package testdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recall-engine/recall/migrations"
	"github.com/recall-engine/recall/sql"
)

// The Citus cluster of scripts/citus.sh: `make test` starts it when Citus's source is there
// and sets these to its nodes' admin URLs.
const (
	EnvCitusURL     = "TEST_CITUS_URL"     // the coordinator
	EnvCitusWorkers = "TEST_CITUS_WORKERS" // the workers, space-separated
	// EnvCitusKeep, when set, keeps the databases Citus creates (their names are logged):
	// a 1M benchmark corpus loads for an hour, and CitusOpen opens it again.
	EnvCitusKeep = "TEST_CITUS_KEEP"
)

// Citus returns a fresh database on the Citus cluster, migrated, dropped when t ends. It skips
// t, saying why, when TEST_CITUS_URL is unset (make test leaves it unset without Citus's
// source); it fails when the cluster is set but cannot be reached.
//
// Citus keeps its metadata per database, so the database is created on every node with the
// extensions (citus, vector, pg_trgm), the workers are registered on the coordinator, and the
// two roles are made distributed objects before the owner migrates (CitusPrepare).
func Citus(t testing.TB) *DB {
	t.Helper()
	admin := coordinator(t)
	var workers []*pgx.ConnConfig
	for _, u := range strings.Fields(os.Getenv(EnvCitusWorkers)) {
		w, err := pgx.ParseConfig(u)
		if err != nil {
			t.Fatalf("testdb: %s: %v", EnvCitusWorkers, err)
		}
		workers = append(workers, w)
	}
	if len(workers) == 0 {
		t.Fatalf("testdb: %s is set but %s is empty", EnvCitusURL, EnvCitusWorkers)
	}
	ctx := context.Background()
	name := randomName("recall_citus_")
	nodes := append([]*pgx.ConnConfig{admin}, workers...)
	drop := func() {
		if os.Getenv(EnvCitusKeep) != "" {
			t.Logf("testdb: %s set: %s is kept on the cluster", EnvCitusKeep, name)
			return
		}
		for _, n := range nodes {
			err := dropNodeDatabase(n, name)
			switch {
			case errors.Is(err, errHeldByCitus):
				t.Logf("testdb: %s is left on %s:%d for the next Citus test to drop: %v", name, n.Host, n.Port, err)
			case err != nil:
				t.Errorf("testdb: drop %s on %s:%d: %v", name, n.Host, n.Port, err)
			}
		}
	}
	t.Cleanup(drop)
	// One preparation at a time on the cluster, across test processes: each runs the roles
	// file and makes the roles distributed objects, and two doing so at once on a worker
	// failed there with "tuple concurrently updated" (the roles' shared catalog rows).
	lock, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		t.Fatalf("testdb: %s: %v", EnvCitusURL, err)
	}
	defer lock.Close(ctx) //nolint:errcheck // closing ends the session and its lock
	if _, err := lock.Exec(ctx, "SELECT pg_advisory_lock(hashtextextended('recall testdb.Citus', 0))"); err != nil {
		t.Fatalf("testdb: lock the cluster's preparation: %v", err)
	}
	dropOrphans(ctx, lock, workers)
	for _, n := range nodes {
		if err := withAdmin(ctx, n, n.Database, func(c *pgx.Conn) error {
			if _, err := c.Exec(ctx, sqltext.Roles); err != nil {
				return err
			}
			_, err := c.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s OWNER %s", pgx.Identifier{name}.Sanitize(), OwnerRole))
			return err
		}); err != nil {
			t.Fatalf("testdb: create %s on %s:%d: %v", name, n.Host, n.Port, err)
		}
		if err := withAdmin(ctx, n, name, func(c *pgx.Conn) error {
			_, err := c.Exec(ctx, "CREATE EXTENSION citus; CREATE EXTENSION vector; CREATE EXTENSION pg_trgm")
			return err
		}); err != nil {
			t.Fatalf("testdb: extensions in %s on %s:%d: %v", name, n.Host, n.Port, err)
		}
	}
	if err := withAdmin(ctx, admin, name, func(c *pgx.Conn) error { return CitusPrepare(ctx, c, admin, workers) }); err != nil {
		t.Fatalf("testdb: %v", err)
	}
	if err := Migrate(ctx, admin, name); err != nil {
		t.Fatalf("testdb: migrate %s on the coordinator: %v", name, err)
	}
	return citusPools(t, admin, name)
}

// coordinator is the cluster's coordinator (EnvCitusURL); t is skipped without one.
func coordinator(t testing.TB) *pgx.ConnConfig {
	t.Helper()
	coord := os.Getenv(EnvCitusURL)
	if coord == "" {
		t.Skipf("testdb: %s is not set: no Citus cluster (make test starts one when ../shared/citus holds its source)", EnvCitusURL)
	}
	admin, err := pgx.ParseConfig(coord)
	if err != nil {
		t.Fatalf("testdb: %s: %v", EnvCitusURL, err)
	}
	return admin
}

// citusPools opens the owner's and the runtime role's pools on database name of the
// coordinator admin, closed when t ends.
func citusPools(t testing.TB, admin *pgx.ConnConfig, name string) *DB {
	t.Helper()
	ctx := context.Background()
	db := &DB{Name: name, admin: admin}
	var err error
	if db.Owner, err = NewPool(ctx, admin, OwnerRole, name); err != nil {
		t.Fatal(err)
	}
	if db.Runtime, err = NewPool(ctx, admin, RuntimeRole, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// CitusOpen opens name, a database Citus made and EnvCitusKeep kept, as it is: nothing is
// created, migrated or dropped.
func CitusOpen(t testing.TB, name string) *DB {
	t.Helper()
	admin := coordinator(t)
	if err := withAdmin(context.Background(), admin, name, func(*pgx.Conn) error { return nil }); err != nil {
		t.Fatalf("testdb: open %s on the coordinator: %v", name, err)
	}
	return citusPools(t, admin, name)
}

// CitusDistributed is Citus with the schema distributed (migrations.Distribute, what `recall
// migrate distribute` runs).
func CitusDistributed(t testing.TB) *DB {
	t.Helper()
	db := Citus(t)
	owner := db.OwnerSQL()
	defer owner.Close() //nolint:errcheck // closing a handle
	if err := migrations.Distribute(context.Background(), owner); err != nil {
		t.Fatalf("testdb: distribute %s: %v", db.Name, err)
	}
	return db
}

// CitusPrepare readies a database of the coordinator c (a superuser's connection) for recall:
// it names the coordinator and registers the workers, then makes recall_owner and
// recall_runtime distributed objects. Citus creates a role on the workers, as the user whose
// statement first depends on it, by an ALTER ROLE that only a superuser may run; the owner
// role's first function or grant would fail so. A database's owner is such a dependency, made
// by the superuser here.
func CitusPrepare(ctx context.Context, c *pgx.Conn, coord *pgx.ConnConfig, workers []*pgx.ConnConfig) error {
	if _, err := c.Exec(ctx, "SELECT citus_set_coordinator_host($1, $2)", coord.Host, int(coord.Port)); err != nil {
		return fmt.Errorf("citus_set_coordinator_host: %w", err)
	}
	for _, w := range workers {
		if _, err := c.Exec(ctx, "SELECT citus_add_node($1, $2)", w.Host, int(w.Port)); err != nil {
			return fmt.Errorf("citus_add_node %s:%d: %w", w.Host, w.Port, err)
		}
	}
	db := pgx.Identifier{c.Config().Database}.Sanitize()
	for _, role := range []string{RuntimeRole, OwnerRole} {
		if _, err := c.Exec(ctx, "ALTER DATABASE "+db+" OWNER TO "+role); err != nil {
			return fmt.Errorf("distributing role %s: %w", role, err)
		}
	}
	return nil
}

// errHeldByCitus: a worker's database outlived its drop, held only by Citus's own sessions
// (its maintenance daemon, and a connection of its own named citus_internal, seen on a fresh
// machine's CI run after the test passed), with no prepared transaction: nothing of the
// test's is left half-written, and the next Citus test drops it (dropOrphans).
var errHeldByCitus = errors.New("held by Citus's own sessions only")

// dropOrphans drops, best effort, each test database a worker still has that the
// coordinator (whose database is dropped first) no longer has. The caller holds the
// preparation lock, so no database is half-created on the nodes meanwhile.
func dropOrphans(ctx context.Context, coord *pgx.Conn, workers []*pgx.ConnConfig) {
	rows, err := coord.Query(ctx, "SELECT datname FROM pg_database WHERE datname LIKE 'recall\\_citus\\_%'")
	if err != nil {
		return
	}
	live, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, w := range workers {
		var orphans []string
		_ = withAdmin(ctx, w, w.Database, func(c *pgx.Conn) error {
			rows, err := c.Query(ctx, "SELECT datname FROM pg_database WHERE datname LIKE 'recall\\_citus\\_%' AND datname <> ALL ($1)", live)
			if err == nil {
				orphans, err = pgx.CollectRows(rows, pgx.RowTo[string])
			}
			return err
		})
		for _, name := range orphans {
			_ = dropDatabase(ctx, w, name)
		}
	}
}

// dropNodeDatabase drops database name on node n. A node can refuse for a while after the
// test's processes ended (55006: a backend of a killed client or of another node still
// exiting), so it tries for up to 15 s; if it still refuses, the error says what holds the
// database: its sessions and its prepared transactions (a two-phase commit left behind would
// be a half-written write). Held by Citus's sessions alone, the error is errHeldByCitus.
func dropNodeDatabase(n *pgx.ConnConfig, name string) error {
	ctx := context.Background()
	var err error
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		var pe *pgconn.PgError
		if err = dropDatabase(ctx, n, name); err == nil || !errors.As(err, &pe) || pe.Code != "55006" || time.Now().After(deadline) {
			break
		}
	}
	if err == nil {
		return nil
	}
	var held string
	var citusOnly bool
	_ = withAdmin(ctx, n, n.Database, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `SELECT format('sessions: %s; prepared transactions: %s',
			  (SELECT coalesce(string_agg(format('%s %s %s', usename, application_name, state), ', '), 'none') FROM pg_stat_activity WHERE datname = $1),
			  (SELECT coalesce(string_agg(gid, ', '), 'none') FROM pg_prepared_xacts WHERE database = $1)),
			NOT EXISTS (SELECT 1 FROM pg_prepared_xacts WHERE database = $1)
			  AND NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = $1
			    AND NOT (application_name LIKE 'citus\_internal%' OR application_name = 'Citus Maintenance Daemon'))`, name).Scan(&held, &citusOnly)
	})
	if citusOnly {
		return fmt.Errorf("%w: %v (%s)", errHeldByCitus, err, held)
	}
	return fmt.Errorf("%w (%s)", err, held)
}

package testdb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Server is a PostgreSQL server of one test alone, started by scripts/db.sh in a temporary
// directory on a free loopback port, for tests that stop and restart the server under load
// (the shared test server cannot be restarted: other test binaries use it). It is removed
// when the test ends.
type Server struct {
	Admin *pgx.ConnConfig
	dir   string
	port  int
	env   []string
	// replicaPort is the replica's port once Replica started one (0: none).
	replicaPort int
}

// Private starts a private server for t. It needs the server's binaries, like every test
// here: without them it skips (fails under CI).
func Private(t testing.TB) *Server {
	t.Helper()
	return private(t, nil)
}

// PrivateReplicated starts a private server whose WAL streaming replicas can replay
// (Server.Replica starts one).
func PrivateReplicated(t testing.TB) *Server {
	t.Helper()
	return private(t, []string{"RECALL_PG_REPLICATION=1"})
}

func private(t testing.TB, env []string) *Server {
	t.Helper()
	AdminConfig(t)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{dir: reachableTempDir(t), port: port, env: env}
	t.Cleanup(func() {
		if out, err := s.script("clean"); err != nil {
			t.Errorf("testdb: private server clean: %v\n%s", err, out)
		}
	})
	s.Admin = s.startURL(t, "private server", "start")
	return s
}

// startURL runs db.sh with args, which prints a server's admin URL last, and returns its
// config.
func (s *Server) startURL(t testing.TB, what string, args ...string) *pgx.ConnConfig {
	t.Helper()
	out, err := s.script(args...)
	if err != nil {
		t.Fatalf("testdb: %s start: %v\n%s", what, err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	cfg, err := pgx.ParseConfig(lines[len(lines)-1])
	if err != nil {
		t.Fatalf("testdb: %s URL: %v\n%s", what, err, out)
	}
	cfg.ConnectTimeout = 5 * time.Second
	return cfg
}

// reachableTempDir is a directory for a data directory under a temporary directory the
// postgres OS user can enter (initdb runs as postgres when the tests run as root), removed
// when t ends.
func reachableTempDir(t testing.TB) string {
	t.Helper()
	root, err := os.MkdirTemp("", "recall-db-*")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	return filepath.Join(root, "pg")
}

// Stop stops the server (fast shutdown: open sessions are ended, their transactions rolled
// back).
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if out, err := s.script("stop"); err != nil {
		t.Fatalf("testdb: private server stop: %v\n%s", err, out)
	}
}

// Start starts the stopped server again on the same port and data.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	if out, err := s.script("start"); err != nil {
		t.Fatalf("testdb: private server start: %v\n%s", err, out)
	}
}

// NewDB makes a migrated database on the server, with pools as the owner and the runtime
// roles (closed when t ends; the database goes with the server).
func (s *Server) NewDB(t testing.TB) *DB {
	t.Helper()
	ctx := context.Background()
	name := randomName("recall_private_")
	if err := createEmpty(ctx, s.Admin, name); err != nil {
		t.Fatal(err)
	}
	if err := Migrate(ctx, s.Admin, name); err != nil {
		t.Fatalf("testdb: migrating %s: %v", name, err)
	}
	db, err := open(ctx, s.Admin, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

func (s *Server) script(args ...string) (string, error) {
	env := append([]string{"RECALL_PG_PORT=" + strconv.Itoa(s.port), "RECALL_PG_REPLICA_PORT=" + strconv.Itoa(s.replicaPort)}, s.env...)
	return runScript(s.dir, env, args...)
}

// Replica starts a hot-standby replica of s (made by PrivateReplicated) on another loopback
// port, the first time by pg_basebackup with a replication slot, and returns its admin
// config; the replica goes with the server. Databases made on s before or after it are on
// the replica too, once it has replayed them.
func (s *Server) Replica(t testing.TB) *pgx.ConnConfig {
	t.Helper()
	if s.replicaPort == 0 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		s.replicaPort = port
	}
	return s.startURL(t, "replica", "replica", "start")
}

// StopReplica stops the replica (fast shutdown); Replica starts it again.
func (s *Server) StopReplica(t testing.TB) {
	t.Helper()
	if out, err := s.script("replica", "stop"); err != nil {
		t.Fatalf("testdb: replica stop: %v\n%s", err, out)
	}
}

// RolePool is a pool as role on database of the server admin names (the primary or a
// replica), closed when t ends.
func RolePool(t testing.TB, admin *pgx.ConnConfig, role, database string) *pgxpool.Pool {
	t.Helper()
	p, err := NewPool(context.Background(), admin, role, database)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// errHung: db.sh did not finish in 2 minutes.
var errHung = errors.New("did not finish in 2 minutes")

// runScript runs scripts/db.sh with its data under dir and env added, and returns its
// combined output.
func runScript(dir string, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{dbScript()}, args...)...)
	cmd.Env = append(append(os.Environ(), "RECALL_PG_DIR="+dir), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out), fmt.Errorf("db.sh %v: %w", args, errHung)
	}
	return string(out), err
}

// dbScript is scripts/db.sh of this checkout, found from this file's place in it.
func dbScript() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "scripts", "db.sh")
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

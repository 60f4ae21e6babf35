package testdb

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runDB runs scripts/db.sh with its data under dir, failing t when it hangs.
func runDB(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	out, err := runScript(dir, env, args...)
	if errors.Is(err, errHung) {
		t.Fatalf("db.sh %v hung: %s", args, out)
	}
	return out, err
}

func TestScriptHalfCreatedDataDirectory(t *testing.T) {
	t.Parallel()
	AdminConfig(t) // needs the server's binaries: skip (or fail under CI) like the other tests
	dir := reachableTempDir(t)
	if err := os.MkdirAll(filepath.Join(dir, "data", "base"), 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := runDB(t, dir, nil, "start")
	if err == nil {
		t.Fatalf("db.sh start succeeded on a half-created data directory:\n%s", out)
	}
	if !strings.Contains(out, "not a complete data directory") || !strings.Contains(out, "make db-clean") {
		t.Fatalf("message does not say what happened and what to do:\n%s", out)
	}
}

func TestScriptPortInUse(t *testing.T) {
	t.Parallel()
	AdminConfig(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	dir := reachableTempDir(t)
	out, err := runDB(t, dir, []string{"RECALL_PG_PORT=" + strconv.Itoa(port)}, "start")
	if err == nil {
		t.Fatalf("db.sh start succeeded on a busy port:\n%s", out)
	}
	if !strings.Contains(out, "port "+strconv.Itoa(port)+" is in use") || !strings.Contains(out, "RECALL_PG_PORT") {
		t.Fatalf("message does not name the port and the way out:\n%s", out)
	}
	// The data directory it made is complete and reusable once the port is free.
	ln.Close()
	out, err = runDB(t, dir, []string{"RECALL_PG_PORT=" + strconv.Itoa(port)}, "start")
	if err != nil {
		t.Fatalf("db.sh start after freeing the port: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; last != "postgres://postgres@127.0.0.1:"+strconv.Itoa(port)+"/postgres?sslmode=disable" {
		t.Fatalf("last line %q is not the admin URL", last)
	}
	if out, err := runDB(t, dir, []string{"RECALL_PG_PORT=" + strconv.Itoa(port)}, "clean"); err != nil {
		t.Fatalf("db.sh clean: %v\n%s", err, out)
	}
}

func TestUnreachableServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	t.Setenv(EnvURL, "postgres://postgres@127.0.0.1:"+strconv.Itoa(port)+"/postgres?sslmode=disable")
	start := time.Now()
	_, err = connectAdmin()
	if err == nil {
		t.Fatal("connected to a closed port")
	}
	if !strings.Contains(err.Error(), "make db") || !strings.Contains(err.Error(), strconv.Itoa(port)) {
		t.Fatalf("error %q does not name the server and the way out", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatalf("took %v to give up", time.Since(start))
	}
	t.Setenv(EnvURL, "")
	if _, err := connectAdmin(); err == nil || !strings.Contains(err.Error(), "make test") {
		t.Fatalf("unset URL: %v", err)
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestPythonClient runs the Python client's suite (clients/python/tests, pytest) against a
// recall serve of its own on a fresh database: every call of the client, its errors and
// retries, and the client against the OpenAPI document; then the README's three calls in
// Python, as written. The interpreter is $RECALL_PYTHON, else the first of python3 on the
// PATH and /usr/bin/python3 that has pytest (make test installs Debian's python3-pytest
// when none has).
func TestPythonClient(t *testing.T) {
	t.Parallel()
	python := pytestPython(t)
	s := serveProcess(t, testdb.New(t), nil)
	dir, err := filepath.Abs("../../clients/python")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfEs", "tests")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RECALL_TEST_URL=http://"+s.addr, "RECALL_TEST_KEY="+s.key,
		"RECALL_CLIENT_STRICT=1", "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pytest: %v\n%s\nserver log:\n%s", err, out, s.logs.String())
	}
	if strings.Contains(string(out), "skipped") || !strings.Contains(string(out), " passed") {
		t.Fatalf("pytest ran, but not every test passed:\n%s", out)
	}
	t.Logf("%s", out)
	// The README's three calls in Python, as written, on this server.
	code := strings.ReplaceAll(readmeBlock(t, "python", "recall_client"), "127.0.0.1:7411", s.addr)
	run := exec.Command(python, "-c", code)
	run.Env = append(os.Environ(), "PYTHONPATH="+dir, "RECALL_API_KEY="+s.key, "PYTHONDONTWRITEBYTECODE=1")
	got, err := run.CombinedOutput()
	if err != nil || string(got) != "1\nm1\n1\n" {
		t.Fatalf("the README's Python: %v\n%s", err, got)
	}
}

// pytestPython is an interpreter that has pytest, or the test skips (fails under CI).
func pytestPython(t *testing.T) string {
	t.Helper()
	cands := []string{"python3", "/usr/bin/python3"}
	if p := os.Getenv("RECALL_PYTHON"); p != "" {
		cands = []string{p}
	}
	for _, p := range cands {
		if exec.Command(p, "-m", "pytest", "--version").Run() == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("no Python with pytest among %v (CI is set, so this fails instead of skipping): scripts/pytest-install.sh installs it", cands)
	}
	t.Skipf("no Python with pytest among %v: scripts/pytest-install.sh installs it", cands)
	return ""
}

// TestTypeScriptClient builds the TypeScript client (npm ci of its locked dev dependencies,
// tsc) and runs its suite (clients/typescript/test, node's test runner) against a recall serve
// of its own on a fresh database, then the README's three calls in TypeScript, as written.
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed (CI is set, so this fails instead of skipping)", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	dir, err := filepath.Abs("../../clients/typescript")
	if err != nil {
		t.Fatal(err)
	}
	step := func(env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	step(nil, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	step(nil, "node", "node_modules/typescript/bin/tsc", "-p", ".")
	s := serveProcess(t, testdb.New(t), nil)
	env := []string{"RECALL_TEST_URL=http://" + s.addr, "RECALL_TEST_KEY=" + s.key, "RECALL_CLIENT_STRICT=1"}
	out := step(env, "node", "--test", "--test-reporter=spec", "dist/test/")
	if !strings.Contains(out, "ℹ fail 0") || strings.Contains(out, "ℹ pass 0") {
		t.Fatalf("node --test ran, but not every test passed:\n%s", out)
	}
	t.Logf("%s", out)
	// The README's three calls in TypeScript, as written (they are JavaScript too), importing
	// the built client.
	code := readmeBlock(t, "ts", "recall-client")
	code = strings.ReplaceAll(code, `"recall-client"`, `"`+filepath.Join(dir, "dist", "src", "client.js")+`"`)
	code = strings.ReplaceAll(code, "127.0.0.1:7411", s.addr)
	file := filepath.Join(t.TempDir(), "readme.mjs")
	if err := os.WriteFile(file, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := step([]string{"RECALL_API_KEY=" + s.key}, "node", file); got != "1\nm1\n1\n" {
		t.Fatalf("the README's TypeScript printed %q", got)
	}
}

// TestGoOverHTTP runs the README's three calls in Go, as written (go run, the standard
// library only), against a recall serve of its own on a fresh database.
func TestGoOverHTTP(t *testing.T) {
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	s := serveProcess(t, testdb.New(t), nil)
	dir := t.TempDir()
	code := strings.ReplaceAll(readmeBlock(t, "go", "/v1/recall"), "127.0.0.1:7411", s.addr)
	for name, body := range map[string]string{"main.go": code, "go.mod": "module readme\n\ngo 1.24\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(gobin, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RECALL_API_KEY="+s.key, "GOFLAGS=", "GOWORK=off")
	got, err := cmd.CombinedOutput()
	if err != nil || string(got) != "1\nm1\n1\n" {
		t.Fatalf("the README's Go: %v\n%s\nserver log:\n%s", err, got, s.logs.String())
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// readmeBlock is the body of the README's fenced block of lang that contains marker.
func readmeBlock(t *testing.T, lang, marker string) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(string(b), "```"+lang+"\n")[1:] {
		body, _, _ := strings.Cut(part, "```")
		if strings.Contains(body, marker) {
			return body
		}
	}
	t.Fatalf("README.md has no %s block with %q", lang, marker)
	return ""
}

// TestREADMEServe runs the README's "Serving agents" as written, on the built binary: a key
// made with recall keys create, recall serve as a process, the curl lines (on the server's
// port), the MCP client configuration, then SIGTERM, which shuts the server down cleanly.
func TestREADMEServe(t *testing.T) {
	t.Parallel()
	readmeServe(t, testdb.New(t))
}

// TestREADMEServeCitus: the same, with recall serve against a Citus coordinator whose schema
// is distributed (recall migrate distribute): the API's writes, recall and delete run there.
func TestREADMEServeCitus(t *testing.T) {
	t.Parallel()
	readmeServe(t, testdb.CitusDistributed(t))
}

func readmeServe(t *testing.T, db *testdb.DB) {
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is not installed (CI is set, so this fails instead of skipping)")
		}
		t.Skip("curl is not installed")
	}
	bin := filepath.Join(t.TempDir(), "recall")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := append(os.Environ(), "RECALL_DATABASE_URL="+db.URL(testdb.OwnerRole))
	// The key, as the README makes it.
	setup := readmeBlock(t, "sh", "recall keys create")
	create := strings.Fields(strings.SplitN(strings.Split(setup, "\n")[0], "#", 2)[0])
	cmd := exec.Command(bin, create[1:]...)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v", create, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	key := lines[len(lines)-1]
	if !strings.HasPrefix(key, "rk_") {
		t.Fatalf("last line %q is not a key", key)
	}
	env = append(env, "RECALL_API_KEY="+key)
	// recall serve, on a free port.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	logs := &lockedBuffer{}
	serve := exec.Command(bin, "serve", "--addr", addr)
	serve.Env = env
	serve.Stderr = logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	defer func() { _ = serve.Process.Kill() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			_ = r.Body.Close()
			if r.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("recall serve not ready in 60 s:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The curl lines, as written, on this server's port.
	want := []string{`"memories":1`, `"external_id":"m1"`, `"deleted":1`}
	sc := bufio.NewScanner(strings.NewReader(readmeBlock(t, "sh", "curl -s")))
	i := 0
	for sc.Scan() {
		line := strings.ReplaceAll(sc.Text(), "127.0.0.1:7411", addr)
		c := exec.Command("bash", "-c", line)
		c.Env = env
		out, err := c.CombinedOutput()
		if err != nil || !strings.Contains(string(out), want[i]) {
			t.Fatalf("%s: %v\n%s\nwant %s", line, err, out, want[i])
		}
		i++
	}
	if i != len(want) {
		t.Fatalf("%d curl lines, want %d", i, len(want))
	}
	// The MCP client configuration, as written (the binary for "recall", the key for "rk_...").
	var conf struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(readmeBlock(t, "json", "mcpServers")), &conf); err != nil {
		t.Fatal(err)
	}
	s := conf.MCPServers["recall"]
	if s.Command != "recall" || s.Env["RECALL_API_KEY"] != "rk_..." {
		t.Fatalf("configuration %+v", s)
	}
	mc := exec.Command(bin, s.Args...)
	mc.Env = append(os.Environ(), "RECALL_DATABASE_URL="+db.URL(testdb.OwnerRole), "RECALL_API_KEY="+key)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "readme", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: mc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 5 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	_ = cs.Close()
	// SIGTERM: a clean exit.
	if err := serve.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil || !strings.Contains(logs.String(), "shutting down") {
			t.Fatalf("after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("recall serve still running 30 s after SIGTERM:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), key[20:]) {
		t.Fatal("the server's log holds the key")
	}
}

// lockedBuffer is the server process's stderr, read while the process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeFlags: flags default to their environment variables, a flag given wins, and a
// value that is not positive or does not parse is a usage error naming it; nothing connects.
func TestServeFlags(t *testing.T) {
	t.Parallel()
	run := func(env map[string]string, args ...string) (int, string) {
		var out, errb bytes.Buffer
		m := &Main{cli.Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}}
		return m.Run(context.Background(), args), errb.String()
	}
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"RECALL_MAX_CONCURRENT": "many"}, []string{"serve"}, `RECALL_MAX_CONCURRENT="many"`},
		{map[string]string{"RECALL_MAX_CONCURRENT": "0"}, []string{"serve"}, "--max-concurrent 0"},
		{map[string]string{"RECALL_MAX_CONCURRENT": "0"}, []string{"serve", "--max-concurrent", "-3"}, "--max-concurrent -3"},
		{map[string]string{"RECALL_RECALL_TIMEOUT": "soon"}, []string{"mcp"}, `RECALL_RECALL_TIMEOUT="soon"`},
		{nil, []string{"serve", "--write-timeout", "0s"}, "must be positive"},
		{nil, []string{"serve", "extra"}, `unexpected "extra"`},
		{map[string]string{"RECALL_LOG_LEVEL": "loud"}, []string{"serve"}, `--log-level "loud"`},
		{nil, []string{"mcp"}, "RECALL_API_KEY is not set"},
		{map[string]string{"RECALL_KEY_RATE": "0"}, []string{"serve"}, "--key-rate and --key-burst positive"},
		{nil, []string{"serve", "--max-concurrent-writes", "-1"}, "--max-concurrent-writes must be 0 or more"},
		{nil, []string{"serve", "--set", "rrf_k=-2"}, "--set"},
		{nil, []string{"serve", "--order", "/nonexistent/order.json"}, "--order"},
	} {
		code, stderr := run(c.env, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v %v: exit %d, stderr %q, want 2 and %q", c.env, c.args, code, stderr, c.want)
		}
	}
}

// TestServeSettings: the settings reach a running server: a settings file named by
// RECALL_SETTINGS with --set over it, as `recall serve` reads them (the one loader every
// command shares), bound what the server's recalls return.
func TestServeSettings(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	settings := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settings, []byte(`{"k": 5, "rrf_k": 30}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := serveProcess(t, db, []string{"RECALL_SETTINGS=" + settings}, "--set", "k=3")
	post := func(path, body string) []byte { t.Helper(); return srv.post(t, path, body, nil) }
	var mems []string
	for i := range 8 {
		mems = append(mems, fmt.Sprintf(`{"id": "m%d", "text": "The harbor crane %d was fixed on Tuesday."}`, i, i))
	}
	post("/v1/memories", `{"memories": [`+strings.Join(mems, ",")+`]}`)
	var tr struct {
		K          int `json:"k"`
		Candidates []struct {
			Why string `json:"why"`
		} `json:"candidates"`
		Pack struct {
			Items []json.RawMessage `json:"items"`
		} `json:"pack"`
	}
	if err := json.Unmarshal(post("/v1/trace", `{"query": "harbor crane", "budget": 5000}`), &tr); err != nil {
		t.Fatal(err)
	}
	// k 3 from --set over the file's 5; rrf_k 30 from the file: bm25's rank 1 adds 0.7/31.
	if tr.K != 3 || len(tr.Pack.Items) != 3 || len(tr.Candidates) == 0 || !strings.Contains(tr.Candidates[0].Why, "adds 0.022581") {
		t.Fatalf("k %d, %d items, first candidate %+v", tr.K, len(tr.Pack.Items), tr.Candidates[:min(1, len(tr.Candidates))])
	}
}

// served is a recall serve process on loopback with one key (user ana, scope team).
type served struct {
	addr, key string
	logs      *lockedBuffer
}

// serveProcess builds recall, creates a key on db and starts recall serve with the extra
// environment and arguments, waiting until /readyz answers 200. The process is killed when
// the test ends.
func serveProcess(t *testing.T, db *testdb.DB, extraEnv []string, args ...string) *served {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "recall")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := append(append(os.Environ(), "RECALL_DATABASE_URL="+db.URL(testdb.OwnerRole)), extraEnv...)
	create := exec.Command(bin, "keys", "create", "--user", "ana", "--read", "team", "--write", "team")
	create.Env = env
	out, err := create.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &served{addr: ln.Addr().String(), key: lines[len(lines)-1], logs: &lockedBuffer{}}
	ln.Close()
	serve := exec.Command(bin, append([]string{"serve", "--addr", s.addr}, args...)...)
	serve.Env, serve.Stderr = env, s.logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = serve.Process.Signal(syscall.SIGTERM); _ = serve.Wait() })
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if r, err := http.Get("http://" + s.addr + "/readyz"); err == nil {
			_ = r.Body.Close()
			if r.StatusCode == 200 {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("recall serve not ready in 60 s:\n%s", s.logs.String())
		}
	}
}

// post sends body to path with the key and the extra headers, and returns the 200 answer.
func (s *served) post(t *testing.T, path, body string, header http.Header) []byte {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+s.addr+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+s.key)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close() //nolint:errcheck // a read response
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 {
		t.Fatalf("%s: %d %s", path, r.StatusCode, b)
	}
	return b
}

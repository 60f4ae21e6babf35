package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/server"
)

// mcpSession runs the MCP exchange the tests share on session: four tools listed, recall
// returns the Go API's pack (structured) and a text for the model, remember and forget
// write and delete, trace explains.
func mcpSession(t *testing.T, w *world, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 40 {
			t.Errorf("tool %s: description %q is too short for a model to use", tool.Name, tool.Description)
		}
		// Every tool says what it does to the memory, and what it returns.
		a := tool.Annotations
		readOnly := tool.Name == server.ToolSearch || tool.Name == server.ToolTrace
		destructive := tool.Name == server.ToolForget
		idempotent := readOnly || destructive || tool.Name == server.ToolSupersede // marking twice marks the same
		if a == nil || a.ReadOnlyHint != readOnly || a.OpenWorldHint == nil || *a.OpenWorldHint ||
			(!readOnly && (a.DestructiveHint == nil || *a.DestructiveHint != destructive)) || idempotent != a.IdempotentHint {
			t.Errorf("tool %s: annotations %+v", tool.Name, a)
		}
		if schema, ok := tool.OutputSchema.(map[string]any); !ok || schema["type"] != "object" {
			t.Errorf("tool %s: output schema %v", tool.Name, tool.OutputSchema)
		}
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "recall_forget,recall_remember,recall_search,recall_supersede,recall_trace" {
		t.Fatalf("tools %v", names)
	}
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	text := resultText
	// The vocabulary of POST /v1/recall: an empty query is refused once, by its name.
	if res := call(server.ToolSearch, map[string]any{"query": " "}); !res.IsError || strings.Count(text(res), "query: empty") != 1 {
		t.Fatalf("an empty query: %s", text(res))
	}
	// The key is read-only (reader): recall records nothing, so the Go API's pack is the same.
	want, err := w.engine.Recall(ctx, recall.User{ID: "rita", Read: []string{"team", "ops"}}, "Who fixed the crane?", 300, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := call(server.ToolSearch, map[string]any{"query": "Who fixed the crane?", "budget": 300})
	if res.IsError {
		t.Fatalf("recall: %s", text(res))
	}
	var got recall.Pack
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if itemIDs(got) != itemIDs(*want) {
		t.Fatalf("MCP pack:\n%s\nGo pack:\n%s", itemIDs(got), itemIDs(*want))
	}
	if !strings.Contains(text(res), "id "+want.Items[0].ExternalID) || !strings.Contains(text(res), want.Items[0].Text) {
		t.Fatalf("text for the model lacks the first item:\n%s", text(res))
	}
	if res := call(server.ToolSearch, map[string]any{"query": "x", "read": []string{"other"}}); !res.IsError || !strings.Contains(text(res), "read[0]") {
		t.Fatalf("widening read: %v %s", res.IsError, text(res))
	}
	if res := call(server.ToolTrace, map[string]any{"query": "Who fixed the crane?"}); res.IsError || !strings.Contains(text(res), "packed") {
		t.Fatalf("trace: %s", text(res))
	}
	// The reader may not write.
	if res := call(server.ToolRemember, map[string]any{"memories": []any{map[string]any{"text": "x"}}}); !res.IsError || !strings.Contains(text(res), "may not write") {
		t.Fatalf("reader remember: %s", text(res))
	}
	if res := call(server.ToolForget, map[string]any{"ids": []string{want.Items[0].ExternalID}}); !res.IsError || !strings.Contains(text(res), "may not write") {
		t.Fatalf("reader forget: %s", text(res))
	}
}

func TestMCPInMemory(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- w.srv.ServeMCP(ctx, st, w.keys["reader"]) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	mcpSession(t, w, cs)
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil && ctx.Err() == nil {
		t.Fatalf("ServeMCP: %v", err)
	}
}

// bearerTransport adds a bearer key to each request.
type bearerTransport struct{ key string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

func TestMCPOverHTTP(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	connect := func(key string) (*mcp.ClientSession, error) {
		return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: w.url + "/mcp",
			HTTPClient: &http.Client{Transport: bearerTransport{key}}, DisableStandaloneSSE: true}, nil)
	}
	if _, err := connect("rk_bad"); err == nil {
		t.Fatal("connected with a bad key")
	}
	// The newest protocol revision the SDK speaks, and 2025-06-18 (the first with output
	// schemas and structured content), each through the whole exchange.
	for _, version := range []string{mcp.SupportedProtocolVersions()[0], "2025-06-18"} {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: w.url + "/mcp",
			HTTPClient: &http.Client{Transport: bearerTransport{w.keys["reader"]}}, DisableStandaloneSSE: true},
			&mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("protocol %s: %v", version, err)
		}
		if got := cs.InitializeResult().ProtocolVersion; got != version {
			t.Fatalf("asked for protocol %s, the server answered %s", version, got)
		}
		mcpSession(t, w, cs)
		_ = cs.Close()
	}
	// A writer's key remembers and forgets, as itself.
	ws, err := connect(w.keys["ana"])
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ws.Close() }()
	res, err := ws.CallTool(ctx, &mcp.CallToolParams{Name: server.ToolRemember, Arguments: map[string]any{
		"memories": []any{map[string]any{"id": "mcp-1", "text": "Ana moved the standup to Thursdays.", "speaker": "Ana"}}}})
	if err != nil || res.IsError {
		t.Fatalf("remember: %v %+v", err, res)
	}
	var scopes []string
	if err := w.db.Owner.QueryRow(ctx, `SELECT scopes FROM recall.memories WHERE external_id = 'mcp-1'`).Scan(&scopes); err != nil || strings.Join(scopes, ",") != "team" {
		t.Fatalf("remembered memory in %v (%v)", scopes, err)
	}
	// A memory remembered with a time it expired at is stored and never recalled.
	res, err = ws.CallTool(ctx, &mcp.CallToolParams{Name: server.ToolRemember, Arguments: map[string]any{
		"memories": []any{map[string]any{"id": "mcp-2", "text": "Ana moved the standup to Tuesdays.", "speaker": "Ana", "expires_at": "2001-01-01T00:00:00Z"}}}})
	if err != nil || res.IsError {
		t.Fatalf("remember with expires_at: %v %+v", err, res)
	}
	res, err = ws.CallTool(ctx, &mcp.CallToolParams{Name: server.ToolSearch, Arguments: map[string]any{"query": "When is the standup moved to?"}})
	if err != nil || res.IsError || !strings.Contains(resultText(res), "Thursdays") || strings.Contains(resultText(res), "Tuesdays") {
		t.Fatalf("search after remembering an expired memory: %v %+v", err, res)
	}
	res, err = ws.CallTool(ctx, &mcp.CallToolParams{Name: server.ToolForget, Arguments: map[string]any{"ids": []string{"mcp-1", "mcp-2"}}})
	if err != nil || res.IsError {
		t.Fatalf("forget: %v %+v", err, res)
	}
	if n := w.count(t); n != 18 {
		t.Fatalf("%d memories after remember and forget, want 18", n)
	}
}

// TestMCPStdioBinary: the built recall binary's `recall mcp`, as an MCP client runs it.
func TestMCPStdioBinary(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	bin := filepath.Join(t.TempDir(), "recall")
	build := exec.Command("go", "build", "-o", bin, "../cmd/recall")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "mcp")
	cmd.Env = append(os.Environ(), "RECALL_DATABASE_URL="+w.db.URL(testdb.OwnerRole), "RECALL_API_KEY="+w.keys["reader"])
	cmd.Stderr = os.Stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mcpSession(t, w, cs)
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
}

// resultText is a tool result's text content.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPWritesTakeAWriteSlot: --max-concurrent-writes binds MCP's remember as it does HTTP's
// writes: while an HTTP write holds the one write slot (blocked on a lock), a remember is
// refused busy and stores nothing, and a search still answers; after it, the remember works.
func TestMCPWritesTakeAWriteSlot(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	alt := *w
	alt.url = serveWith(t, w, server.Config{MaxConcurrentWrites: 1})
	ws := mcpSessionAt(t, alt.url, w.keys["ana"])
	lock := lockMemories(t, w, "EXCLUSIVE")
	held := make(chan response, 1)
	go func() {
		held <- alt.do(t, "POST", "/v1/memories", w.keys["ana"], map[string]any{"memories": []any{map[string]any{"id": "http-1", "text": "Held by a lock."}}})
	}()
	remember := func(id string) (*mcp.CallToolResult, error) {
		return ws.CallTool(ctx, &mcp.CallToolParams{Name: server.ToolRemember, Arguments: map[string]any{
			"memories": []any{map[string]any{"id": id, "text": "Ana moved the standup to Thursdays."}}}})
	}
	// The HTTP write holds the slot once it waits on the lock.
	waitOnMemories(t, w, 1)
	res, err := remember("mcp-busy")
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "writes are running") {
		t.Fatalf("a remember while the write slot is held: %v %+v, want a busy tool error", err, res)
	}
	if res, err := ws.CallTool(ctx, &mcp.CallToolParams{Name: server.ToolSearch, Arguments: map[string]any{"query": "standup"}}); err != nil || res.IsError {
		t.Fatalf("a search while the write slot is held: %v %+v", err, res)
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if r := <-held; r.status != http.StatusOK {
		t.Fatalf("the held HTTP write: %d %s", r.status, r.body)
	}
	if res, err := remember("mcp-after"); err != nil || res.IsError {
		t.Fatalf("a remember after the slot was freed: %v %+v", err, res)
	}
	var n int
	if err := w.db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.memories WHERE external_id IN ('mcp-busy', 'mcp-after')`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d of mcp-busy and mcp-after stored (%v), want mcp-after alone", n, err)
	}
}

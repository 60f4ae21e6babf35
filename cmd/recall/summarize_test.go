package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestSummarizeCommand: recall summarize builds a scope's session summaries (twice: the same
// ones), and recall query shows them at the summaries altitude, never at the memories one,
// with the graph context when asked.
func TestSummarizeCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var lines []string
	for i := 1; i <= 6; i++ {
		lines = append(lines, fmt.Sprintf(`{"conversation": "c1", "speaker": "Ana Lima", "text": "Ana Lima fixed lantern %d near the Gull Harbor. The weather was calm."}`, i))
	}
	if code := c.run("ingest", writeFile(t, "chat.jsonl", strings.Join(lines, "\n")+"\n"), "--scope", "team"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, c.err.String())
	}
	for range 2 {
		if code := c.run("summarize", "--scope", "team", "--by", "session", "--max-tokens", "30"); code != 0 {
			t.Fatalf("summarize: exit %d: %s", code, c.err.String())
		}
		if !strings.Contains(c.out.String(), "scope team: 1 summaries written (1 by session, 0 by community), 6 (summary, memory) links") {
			t.Fatalf("summarize said %q", c.out.String())
		}
		if n := c.count(`SELECT count(*) FROM recall.memories WHERE kind = 'summary'`); n != 1 {
			t.Fatalf("%d summaries after a run", n)
		}
	}
	if code := c.run("query", "lantern harbor", "--scope", "team", "--altitude", "summaries", "--graph-context"); code != 0 ||
		!strings.Contains(c.out.String(), "summary of 6 memories") {
		t.Fatalf("query at the summaries altitude: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if code := c.run("query", "lantern harbor", "--scope", "team", "--altitude", "memories", "--json"); code != 0 ||
		strings.Contains(c.out.String(), `"kind": "summary"`) || !strings.Contains(c.out.String(), `"altitude": "memories"`) {
		t.Fatalf("query at the memories altitude: exit %d: %s", code, c.out.String())
	}
	if code := c.run("query", "lantern", "--scope", "team", "--altitude", "tenant"); code != 2 || !strings.Contains(c.err.String(), "--altitude") {
		t.Fatalf("bad altitude: exit %d: %s", code, c.err.String())
	}
	if code := c.run("summarize", "--scope", "team", "--by", "topic"); code != 1 || !strings.Contains(c.err.String(), "by[0]") {
		t.Fatalf("bad grouping: exit %d: %s", code, c.err.String())
	}
}

// TestQueryReplicaURL: --replica-url runs the statement on the server it names (here the
// primary's own runtime URL, which serves as any replica would) and the output says so; a
// malformed URL is a usage error.
func TestQueryReplicaURL(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if code := c.run("ingest", writeFile(t, "m.jsonl", `{"type": "memory", "id": "a", "text": "the ferry left late"}`+"\n"), "--scope", "team"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, c.err.String())
	}
	if code := c.run("query", "ferry", "--scope", "team", "--replica-url", c.db.URL("recall_runtime")); code != 0 || !strings.Contains(c.out.String(), "(on the replica)") {
		t.Fatalf("exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if code := c.run("query", "ferry", "--scope", "team"); code != 0 || !strings.Contains(c.out.String(), "(on the primary)") {
		t.Fatalf("exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if code := c.run("query", "ferry", "--scope", "team", "--replica-url", "postgres://%zz"); code != 2 || !strings.Contains(c.err.String(), "--replica-url") {
		t.Fatalf("bad URL: exit %d: %s", code, c.err.String())
	}
}

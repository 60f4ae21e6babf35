package main

import (
	"strings"
	"testing"
)

// TestPruneCommand: recall prune deletes the scope's memories whose expires_at has passed
// (native records with lenient times), keeps the others and another scope's, says how many,
// and refuses a time it cannot read.
func TestPruneCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	lines := `{"type": "memory", "id": "old", "text": "The spring timetable.", "expires_at": "2020-01-01"}
{"type": "memory", "id": "soon", "text": "The summer timetable.", "expires_at": "2020-06-01"}
{"type": "memory", "id": "kept", "text": "The harbour map."}
`
	for _, scope := range []string{"team", "other"} {
		if code := c.run("ingest", writeFile(t, "notes.jsonl", lines), "--format", "native", "--scope", scope); code != 0 {
			t.Fatalf("ingest %s: exit %d: %s", scope, code, c.err.String())
		}
	}
	if code := c.run("prune", "--scope", "team", "--at", "2020-03-01"); code != 0 || !strings.Contains(c.out.String(), "scope set team: 1 expired memories deleted") {
		t.Fatalf("prune at 2020-03-01: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if code := c.run("prune", "--scope", "team"); code != 0 || !strings.Contains(c.out.String(), "scope set team: 1 expired memories deleted") {
		t.Fatalf("prune now: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{team}' AND external_id = 'kept'`); n != 1 {
		t.Fatalf("the memory without expiry: %d rows", n)
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{team}'`); n != 1 {
		t.Fatalf("%d memories left in team, want 1", n)
	}
	if n := c.count(`SELECT count(*) FROM recall.memories WHERE scopes = '{other}'`); n != 3 {
		t.Fatalf("%d memories left in other, want 3", n)
	}
	if code := c.run("prune", "--scope", "team", "--at", "next tuesday"); code != 2 || !strings.Contains(c.err.String(), "--at") {
		t.Fatalf("bad --at: exit %d: %s", code, c.err.String())
	}
}

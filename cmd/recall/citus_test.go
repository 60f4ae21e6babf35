package main

import (
	"strings"
	"testing"

	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestMigrateDistribute: recall migrate distribute on a Citus coordinator distributes a
// database that already holds memories (they move to the shards with what was derived from
// them), says so, and does nothing the second time; recall query and ingest then run against
// the coordinator, the routed recall finding the memories written before and after, and the
// note for an empty scope naming the scopes that have memories. On a single server it is
// refused, naming why.
func TestMigrateDistribute(t *testing.T) {
	t.Parallel()
	c := &harness{t: t, db: testdb.Citus(t)}
	before := writeFile(t, "before.jsonl", `{"type": "memory", "id": "b1", "text": "The harbour crane was repaired on Tuesday."}
{"type": "memory", "id": "b2", "text": "The ferry timetable changes in June."}
`)
	if code := c.run("ingest", before, "--format", "native", "--scope", "team"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, c.err.String())
	}
	if code := c.run("migrate", "distribute"); code != 0 || !strings.Contains(c.out.String(), "distributed by scope set") {
		t.Fatalf("distribute: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if n := c.count(`SELECT count(*) FROM pg_dist_partition WHERE logicalrelid::text LIKE 'recall.%' AND partmethod = 'h'`); n != 14 {
		t.Fatalf("%d tables distributed by hash, want 14", n)
	}
	if code := c.run("migrate", "distribute"); code != 0 || !strings.Contains(c.out.String(), "distributed already") {
		t.Fatalf("second distribute: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	after := writeFile(t, "after.jsonl", `{"type": "memory", "id": "a1", "text": "The crane inspection found a cracked pulley."}
`)
	if code := c.run("ingest", after, "--format", "native", "--scope", "team"); code != 0 {
		t.Fatalf("ingest after: exit %d: %s", code, c.err.String())
	}
	if code := c.run("query", "--scope", "team", "what happened to the crane?"); code != 0 {
		t.Fatalf("query: exit %d: %s", code, c.err.String())
	}
	out := c.out.String()
	if !strings.Contains(out, "repaired on Tuesday") || !strings.Contains(out, "cracked pulley") || strings.Contains(out, "warning") {
		t.Fatalf("query on the cluster:\n%s", out)
	}

	// A scope without memories: the note naming the scopes that have some, read on the cluster.
	if code := c.run("query", "--scope", "nobody", "what happened to the crane?"); code != 0 || !strings.Contains(c.err.String(), "team") {
		t.Fatalf("query of an empty scope: exit %d: %s%s", code, c.out.String(), c.err.String())
	}

	single := newCLI(t)
	if code := single.run("migrate", "distribute"); code == 0 || !strings.Contains(single.err.String(), "does not run Citus") {
		t.Fatalf("distribute on one server: exit %d: %s%s", code, single.out.String(), single.err.String())
	}
}

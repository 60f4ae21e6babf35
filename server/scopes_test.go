package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/recall-engine/recall/keys"
	"github.com/recall-engine/recall/server"
)

// TestEraseRoute: DELETE /v1/scopes/{scope} takes an admin key: any other key (even one that
// writes the set) gets 403 and nothing is removed; an admin key's dry run counts, its erase
// removes every memory of exactly that set and answers the receipt; a bad dry_run is a 400
// naming it.
func TestEraseRoute(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	text, k, err := keys.Create(ctx, w.db.Owner, keys.Spec{User: "root", Read: []string{"ops"}, Admin: true})
	if err != nil || !k.Admin {
		t.Fatalf("admin key: %+v %v", k, err)
	}
	count := func(set string) int {
		var n int
		if err := w.db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.memories WHERE scopes = $1::text[]`, set).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if r := w.do(t, "DELETE", "/v1/scopes/team", w.keys["ana"], nil); r.status != http.StatusForbidden || r.problem(t).Type != "urn:recall:problem:admin" || count("{team}") != 6 {
		t.Fatalf("a writer of team, not admin: %d %s; %d memories left", r.status, r.body, count("{team}"))
	}
	if r := w.do(t, "DELETE", "/v1/scopes/team?dry_run=maybe", text, nil); r.status != http.StatusBadRequest || r.problem(t).Errors[0].Field != "dry_run" {
		t.Fatalf("dry_run=maybe: %d %s", r.status, r.body)
	}
	var receipt server.EraseResponse
	r := w.do(t, "DELETE", "/v1/scopes/team?dry_run=true", text, nil)
	if err := json.Unmarshal(r.body, &receipt); err != nil || r.status != 200 || !receipt.DryRun || receipt.Tables["memories"] != 6 || count("{team}") != 6 {
		t.Fatalf("dry run: %d %s", r.status, r.body)
	}
	r = w.do(t, "DELETE", "/v1/scopes/team", text, nil)
	receipt = server.EraseResponse{}
	if err := json.Unmarshal(r.body, &receipt); err != nil || r.status != 200 || receipt.DryRun || receipt.Tables["memories"] != 6 || receipt.At.IsZero() {
		t.Fatalf("erase: %d %s", r.status, r.body)
	}
	if count("{team}") != 0 || count("{ops}") != 6 || count("{other}") != 6 {
		t.Fatalf("after erasing team: team %d, ops %d, other %d memories", count("{team}"), count("{ops}"), count("{other}"))
	}
}

// TestExportRoute: GET /v1/export streams the scope set a key reads as native records, framed
// by the export header and its end record with the counts, and only that set; a scope the key
// does not read is a 403 and a bad embeddings a 400, before any line.
func TestExportRoute(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.do(t, "GET", "/v1/export?scope=team&embeddings=true", w.keys["reader"], nil)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("export: %d %s", r.status, r.body)
	}
	lines := strings.Split(strings.TrimSpace(string(r.body)), "\n")
	var head, end map[string]any
	if json.Unmarshal([]byte(lines[0]), &head) != nil || json.Unmarshal([]byte(lines[len(lines)-1]), &end) != nil ||
		head["type"] != "export" || end["type"] != "export_end" {
		t.Fatalf("framing: %s ... %s", lines[0], lines[len(lines)-1])
	}
	memories := 0
	for _, l := range lines[1 : len(lines)-1] {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["type"] == "memory" {
			memories++
			if emb, _ := rec["embedding"].([]any); len(emb) == 0 {
				t.Fatalf("a memory without its embedding: %s", l)
			}
		}
	}
	if memories != 6 || end["memories"] != float64(6) {
		t.Fatalf("%d memory lines, end %v: want the 6 of team", memories, end)
	}
	if r := w.do(t, "GET", "/v1/export?scope=other", w.keys["reader"], nil); r.status != http.StatusForbidden || r.problem(t).Errors[0].Field != "scope[0]" {
		t.Fatalf("a scope the key does not read: %d %s", r.status, r.body)
	}
	if r := w.do(t, "GET", "/v1/export?scope=team&embeddings=some", w.keys["reader"], nil); r.status != http.StatusBadRequest || r.problem(t).Errors[0].Field != "embeddings" {
		t.Fatalf("embeddings=some: %d %s", r.status, r.body)
	}
	if r := w.do(t, "GET", "/v1/export", w.keys["reader"], nil); r.status != http.StatusBadRequest {
		t.Fatalf("no scope, a key of two read scopes and none written: %d %s", r.status, r.body)
	}
}

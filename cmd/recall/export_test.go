package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportCommand: recall export writes a scope set (the demo corpus, a chat of turns with
// extracted names) that recall ingest reads into a set of another name, whose own export is
// the same file line for line but its header; a file cut before its end is refused; a failed
// export leaves no file.
func TestExportCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	chat := writeFile(t, "chat.jsonl", `{"conversation": "c1", "speaker": "Ana Lima", "text": "I met Jonas Weber and Priya Nair at the Harbor Museum in Lisbon.", "date": "2024-05-02 18:30"}
{"conversation": "c1", "speaker": "Bo", "text": "Did Jonas Weber show you the old crane?", "date": "2024-05-02 18:31"}
`)
	if code := c.run("ingest", "demo/corpus.jsonl", chat, "--scope", "team,crew"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, c.err.String())
	}
	dir := t.TempDir()
	first, second := filepath.Join(dir, "team.jsonl"), filepath.Join(dir, "copy.jsonl")
	if code := c.run("export", "--scope", "crew,team", "--out", first); code != 0 || !strings.Contains(c.err.String(), "exported scope set crew,team") {
		t.Fatalf("export: exit %d: %s", code, c.err.String())
	}
	if code := c.run("ingest", first, "--scope", "copy"); code != 0 {
		t.Fatalf("ingest of the export: exit %d: %s%s", code, c.out.String(), c.err.String())
	}
	if code := c.run("export", "--scope", "copy", "--out", second); code != 0 {
		t.Fatalf("export of the copy: exit %d: %s", code, c.err.String())
	}
	a, b := readLines(t, first), readLines(t, second)
	if len(a) < 300 || len(a) != len(b) {
		t.Fatalf("%d lines exported, %d from the copy", len(a), len(b))
	}
	if !strings.Contains(a[0], `"type":"export"`) || !strings.Contains(a[len(a)-1], `"type":"export_end"`) {
		t.Fatalf("framing: %s ... %s", a[0], a[len(a)-1])
	}
	for i := 1; i < len(a); i++ {
		if a[i] != b[i] {
			t.Fatalf("line %d:\n%s\n%s", i+1, a[i], b[i])
		}
	}
	for _, want := range []string{`"id":"auto:jonas weber"`, `"predicate":"co_mentioned"`, `"speaker":"Ana Lima"`} {
		if !strings.Contains(strings.Join(a, "\n"), want) {
			t.Errorf("the export has no %s", want)
		}
	}
	cut := writeFile(t, "cut.jsonl", strings.Join(a[:len(a)-1], "\n")+"\n")
	if code := c.run("ingest", cut, "--scope", "cut"); code == 0 || !strings.Contains(c.err.String(), "the file is cut") {
		t.Fatalf("a cut export: exit %d: %s", code, c.err.String())
	}
	// A scope set name refused: no file, not even a partial one.
	bad := filepath.Join(dir, "bad.jsonl")
	if code := c.run("export", "--scope", "no spaces", "--out", bad); code == 0 {
		t.Fatal("an export of an invalid scope name succeeded")
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Errorf("files after a failed export: %v", left)
	}
}

func readLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

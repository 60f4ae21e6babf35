package sqltext

import (
	"slices"
	"strings"
	"testing"
)

// TestStatements: semicolons inside quotes, dollar quotes (tagged and nested in another),
// comments and identifiers do not split; blank and comment-only pieces are dropped; every
// function file splits into statements that rejoin to its text's statements.
func TestStatements(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"SELECT 1; SELECT 2;", []string{"SELECT 1", "SELECT 2"}},
		{"SELECT ';' AS a; SELECT \"x;y\" FROM t", []string{"SELECT ';' AS a", "SELECT \"x;y\" FROM t"}},
		{"SELECT 'it''s; here'; SELECT 2", []string{"SELECT 'it''s; here'", "SELECT 2"}},
		{"CREATE FUNCTION f() AS $$ BEGIN a; b; END $$; DO $x$ BEGIN EXECUTE $$c;$$; END $x$;", []string{
			"CREATE FUNCTION f() AS $$ BEGIN a; b; END $$", "DO $x$ BEGIN EXECUTE $$c;$$; END $x$"}},
		{"-- one; two\nSELECT 1; /* a; /* nested; */ b; */ SELECT 2;\n-- trailing; comment\n", []string{
			"-- one; two\nSELECT 1", "/* a; /* nested; */ b; */ SELECT 2"}},
		{"SELECT $1::int; SELECT a$b$c FROM t;", []string{"SELECT $1::int", "SELECT a$b$c FROM t"}},
		{";;  ;\n-- only a comment;\n", nil},
	} {
		if got := Statements(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Statements(%q):\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	for _, f := range FunctionFiles {
		text, err := Function(f)
		if err != nil {
			t.Fatal(err)
		}
		sts := Statements(text)
		if len(sts) == 0 {
			t.Fatalf("%s: no statements", f)
		}
		for _, s := range sts {
			// Each piece starts a statement (after its comments) and holds no stray end.
			body := strings.TrimSpace(strings.Join(slices.DeleteFunc(strings.Split(s, "\n"), func(l string) bool {
				return strings.HasPrefix(strings.TrimSpace(l), "--")
			}), "\n"))
			if body == "" || !strings.ContainsAny(body[:1], "ACDGRSUIPLT") {
				t.Fatalf("%s: a piece that does not start a statement: %q", f, s[:min(len(s), 200)])
			}
		}
	}
}

package house

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository's root, from this package's directory.
const root = "../.."

// Limits of the house: a file a newcomer reads whole, a function one screen or two.
const (
	maxFileLines = 400
	maxFuncLines = 100
)

// tracked lists the repository's tracked files (git ls-files), or skips the test outside a
// git checkout.
func tracked(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	var files []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, string(f))
		}
	}
	return files
}

// goFiles lists the tracked non-test Go files.
func goFiles(t *testing.T) []string {
	var out []string
	for _, f := range tracked(t) {
		if strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") {
			if _, err := os.Stat(filepath.Join(root, f)); err == nil { // deleted but not yet committed: gone
				out = append(out, f)
			}
		}
	}
	return out
}

// TestSizes: no non-test Go file over maxFileLines lines, no function over maxFuncLines.
func TestSizes(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	for _, f := range goFiles(t) {
		src, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(src, []byte("\n")); n > maxFileLines {
			t.Errorf("%s: %d lines, the limit is %d: split it by what its parts do", f, n, maxFileLines)
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			fn, ok := n.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				return true
			}
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines > maxFuncLines {
				t.Errorf("%s: func %s is %d lines, the limit is %d", f, fn.Name.Name, lines, maxFuncLines)
			}
			return false
		})
	}
}

// sqlRE finds SQL in a Go string literal: a statement keyword at its start, after any
// opening parentheses (a subquery: "(SELECT ...").
var sqlRE = regexp.MustCompile("^[`\"][\\s(]*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP|SET|ANALYZE|GRANT|REVOKE|TRUNCATE|COPY|VACUUM|EXPLAIN|PREPARE|EXECUTE|DEALLOCATE|LOCK|BEGIN|COMMIT|ROLLBACK)\\s+[A-Za-z(@*]")

// sqlWriters are the Go files that write SQL text rather than run their own: each with why.
var sqlWriters = map[string]string{
	"statement/build.go":   "the statement builder joins the fragments of sql/lanes/ into one WITH RECURSIVE statement",
	"migrations/schema.go": "it writes sql/schema.sql, the schema as a document for readers: SQL text never executed",
	"sql/functions.go":     "package sqltext itself",
	"statement/profile.go": "the profile writes EXPLAIN EXECUTE of the statement prepared, its arguments as literals (EXECUTE takes no binds)",
	"sql/sql.go":           "package sqltext itself",
}

// TestSQLPattern: what sqlRE takes for SQL and what it leaves.
func TestSQLPattern(t *testing.T) {
	t.Parallel()
	for lit, want := range map[string]bool{
		"`SELECT id FROM recall.memories`":      true,
		"\"(SELECT count(*) FROM x)\"":          true,
		"\"( (WITH a AS (SELECT 1) SELECT *)\"": true,
		"`EXPLAIN (ANALYZE) SELECT 1`":          true,
		"\"DEALLOCATE recall_profile\"":         true,
		"\"Select a lane\"":                     false,
		"\"(see the select below)\"":            false,
		"\"SELECTED items\"":                    false,
	} {
		if got := sqlRE.MatchString(lit); got != want {
			t.Errorf("sqlRE on %s: %v, want %v", lit, got, want)
		}
	}
}

// TestNoSQLInGo: SQL lives in .sql files under sql/ and migrations/, embedded by package
// sqltext and the migrations; runtime Go composes them and holds no statement of its own.
func TestNoSQLInGo(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	for _, f := range goFiles(t) {
		if strings.HasPrefix(f, "internal/testkit/") || sqlWriters[f] != "" {
			continue // test helpers build fixtures with SQL of their own
		}
		file, err := parser.ParseFile(fset, filepath.Join(root, f), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && sqlRE.MatchString(lit.Value) {
				t.Errorf("%s: SQL in Go (%.40s...): put it in a file under sql/ with named binds", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
}

// TestNoBuildOutput: no tracked file is an executable build output (an ELF or Mach-O
// binary, a Windows executable), as `go build` in a command's folder or the root makes.
func TestNoBuildOutput(t *testing.T) {
	t.Parallel()
	magics := [][]byte{{0x7f, 'E', 'L', 'F'}, {0xcf, 0xfa, 0xed, 0xfe}, {0xfe, 0xed, 0xfa, 0xcf}, {'M', 'Z'}}
	for _, f := range tracked(t) {
		h, err := os.Open(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the work tree
		}
		head := make([]byte, 4)
		n, _ := h.Read(head)
		_ = h.Close()
		for _, m := range magics {
			if n >= len(m) && bytes.Equal(head[:len(m)], m) {
				t.Errorf("%s is an executable: build outputs stay out of the repository (.gitignore)", f)
			}
		}
	}
}

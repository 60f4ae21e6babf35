package house

import (
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/recall-engine/recall"

// layerRE finds a row of the packages table of docs/ARCHITECTURE.md: its first cell.
var layerRE = regexp.MustCompile("(?m)^\\| (`[^|]+) \\|")

// layers reads the table's rows, top first: each the packages its first cell names, as
// patterns ("" the root, "rerank" also its sub-packages, "internal/command/..." a prefix).
func layers(t *testing.T) [][]string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs/ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(doc), "## The packages")
	if start < 0 {
		t.Fatal("docs/ARCHITECTURE.md: no section \"The packages\"")
	}
	end := strings.Index(string(doc[start+3:]), "\n## ")
	table := string(doc[start:])
	if end >= 0 {
		table = string(doc[start : start+3+end])
	}
	var out [][]string
	for _, m := range layerRE.FindAllStringSubmatch(table, -1) {
		var row []string
		for _, name := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(m[1], -1) {
			p := strings.TrimSuffix(name[1], "/")
			if p == "recall" {
				p = ""
			}
			row = append(row, p)
		}
		out = append(out, row)
	}
	if len(out) < 10 {
		t.Fatalf("docs/ARCHITECTURE.md: the packages table has %d rows", len(out))
	}
	return out
}

// layerOf is the row of pkg (a path relative to the module, "" the root), or -1.
func layerOf(rows [][]string, pkg string) int {
	for i, row := range rows {
		for _, p := range row {
			switch {
			case strings.HasSuffix(p, "/..."):
				if strings.HasPrefix(pkg+"/", strings.TrimSuffix(p, "...")) {
					return i
				}
			case p == "":
				if pkg == "" {
					return i
				}
			case pkg == p || strings.HasPrefix(pkg, p+"/"):
				return i
			}
		}
	}
	return -1
}

// TestLayers: every package has its row in docs/ARCHITECTURE.md's table, and none imports
// one of its own row or a row above (a sub-package may import its parent): the table is the
// real order of the layers, the commands on top, sql and the small internals at the bottom.
// Test-only packages (internal/testkit, internal/house) may import anything.
func TestLayers(t *testing.T) {
	t.Parallel()
	rows := layers(t)
	imports := map[string][]string{} // package -> the module's packages it imports
	fset := token.NewFileSet()
	for _, f := range goFiles(t) {
		pkg := path.Dir(filepath.ToSlash(f))
		if pkg == "." {
			pkg = ""
		}
		if strings.HasPrefix(pkg, "internal/testkit") || pkg == "internal/house" {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(root, f), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		for _, im := range file.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if p == module {
				imports[pkg] = append(imports[pkg], "")
			} else if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				imports[pkg] = append(imports[pkg], rest)
			}
		}
	}
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		at := layerOf(rows, pkg)
		if at < 0 {
			t.Errorf("package %q has no row in docs/ARCHITECTURE.md's packages table", pkg)
			continue
		}
		qs := slices.Clone(imports[pkg])
		slices.Sort(qs)
		for _, q := range slices.Compact(qs) {
			below := layerOf(rows, q)
			parent := q != "" && strings.HasPrefix(pkg, q+"/")
			if below <= at && !parent {
				t.Errorf("package %q (row %d) imports %q (row %d), which is not below it", pkg, at+1, q, below+1)
			}
		}
	}
}

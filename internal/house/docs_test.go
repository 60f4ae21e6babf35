package house

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeRE = regexp.MustCompile("`([^`\\s]+)`")
	// A path as the docs write one: folders and a file, or a folder ending in /.
	pathRE    = regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*/?$`)
	headingRE = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
)

// docs are the documents a newcomer reads: README.md and docs/*.md.
func docs(t *testing.T) []string {
	t.Helper()
	out := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		rel, _ := filepath.Rel(root, m)
		out = append(out, rel)
	}
	return out
}

// slug is a heading's anchor as GitHub makes it.
func slug(h string) string {
	h = strings.ToLower(strings.ReplaceAll(h, "`", ""))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the anchors of markdown file f.
func anchors(t *testing.T, f string) map[string]bool {
	b, err := os.ReadFile(filepath.Join(root, f))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range headingRE.FindAllStringSubmatch(string(b), -1) {
		out[slug(m[1])] = true
	}
	return out
}

// topLevel is the repository's top-level entries: a code span naming a path under one of
// them is a repository path.
func topLevel(t *testing.T) map[string]bool {
	out := map[string]bool{}
	for _, f := range tracked(t) {
		first, _, _ := strings.Cut(f, "/")
		out[first] = true
	}
	return out
}

// examplePaths are files the docs' worked examples create: they name them before they exist.
var examplePaths = map[string]bool{"sql/lanes/recent.sql": true}

// symbolRE is a Go symbol after a package path ("internal/scope.Apply"), not a file.
var symbolRE = regexp.MustCompile(`\.[A-Z][A-Za-z]*$`)

// fileExts are the extensions of a bare file name a doc may write ("fusion.sql").
var fileExts = []string{".go", ".sql", ".md", ".sh", ".json", ".tmpl", ".yml"}

// TestDocLinks: every relative link in README.md and docs/*.md names a file of the
// repository (and a heading there, when it has an anchor), and every repository path a doc
// writes in a code span exists: the map cannot drift from the territory.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	top := topLevel(t)
	base := map[string]bool{}
	for _, f := range tracked(t) {
		base[filepath.Base(f)] = true
	}
	for _, doc := range docs(t) {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		dir := filepath.Dir(doc)
		for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(dir, file)
				if _, err := os.Stat(filepath.Join(root, path)); err != nil {
					t.Errorf("%s: link %s: no such file %s", doc, target, path)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !anchors(t, path)[anchor] {
				t.Errorf("%s: link %s: %s has no heading #%s", doc, target, path, anchor)
			}
		}
		for _, m := range codeRE.FindAllStringSubmatch(text, -1) {
			p := strings.TrimSuffix(m[1], ",")
			if !pathRE.MatchString(p) || symbolRE.MatchString(p) || examplePaths[p] || strings.Contains(p, "...") {
				continue
			}
			first, rest, found := strings.Cut(p, "/")
			if !found {
				for _, ext := range fileExts {
					if strings.HasSuffix(p, ext) && !base[p] && !strings.HasPrefix(p, "*") {
						t.Errorf("%s: names %s, and no file of the repository has that name", doc, p)
					}
				}
				continue
			}
			if rest == "" && !strings.HasSuffix(p, "/") || !top[first] {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				t.Errorf("%s: names %s, which does not exist", doc, p)
			}
		}
	}
}

// commentPathRE is a repository file as a Go comment names one: folders and a file with an
// extension of fileExts ("sql/lanes/fusion.sql", "docs/STATEMENT.md").
var commentPathRE = regexp.MustCompile(`\b[A-Za-z0-9_-]+(/[A-Za-z0-9_.-]+)+\.(go|sql|md|sh|json|tmpl|yml)\b`)

// TestCommentPaths: every repository file a Go comment names exists (a path under one of the
// repository's top-level entries), as TestDocLinks holds the docs to it.
func TestCommentPaths(t *testing.T) {
	t.Parallel()
	top := topLevel(t)
	fset := token.NewFileSet()
	for _, f := range tracked(t) {
		if !strings.HasSuffix(f, ".go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(root, f), nil, parser.ParseComments)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		for _, cg := range file.Comments {
			for _, p := range commentPathRE.FindAllString(cg.Text(), -1) {
				first, _, _ := strings.Cut(p, "/")
				if !top[first] || examplePaths[p] {
					continue
				}
				if _, err := os.Stat(filepath.Join(root, p)); err != nil {
					t.Errorf("%s: a comment names %s, which does not exist", fset.Position(cg.Pos()), p)
				}
			}
		}
	}
}

package modeltest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchWords are whole words of the generated models' vocabulary (scripts/gen-models.py),
// one token each.
var benchWords = strings.Fields(`the of and to a in is was for that on with as by at from it
an be are this or which not have has had were but been their its also they one two three
more than all into other who can when after about these there used some time first new most
study patients cell cells risk disease treatment effect increased reduced lower higher
results found associated clinical human protein gene expression level response data`)

// Words returns n one-token words, cycling through the vocabulary from offset.
func Words(n, offset int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = benchWords[(i+offset)%len(benchWords)]
	}
	return strings.Join(out, " ")
}

// BenchModel returns the directory of a real-shape benchmark model (make bench-models
// writes them under .models/ at the module root; RECALL_BENCH_MODELS overrides the root),
// skipping b when it is missing.
func BenchModel(b *testing.B, name string) string {
	b.Helper()
	root := os.Getenv("RECALL_BENCH_MODELS")
	if root == "" {
		dir, err := os.Getwd()
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				b.Fatal("modeltest: no go.mod above the working directory")
			}
			dir = parent
		}
		root = filepath.Join(dir, ".models")
	}
	dir := filepath.Join(root, name)
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		b.Skipf("no model at %s: run make bench-models", dir)
	}
	return dir
}

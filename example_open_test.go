package recall_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"

	"github.com/recall-engine/recall"
)

// ExampleOpen is the README's "Using it from Go": the lines between the README markers are
// the README's snippet, word for word (TestREADMEShowsExampleOpen). It is compiled, not run,
// since it needs a server; example_recall_test.go has examples that run, with their output.
func ExampleOpen() {
	if err := askFromGo(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func askFromGo(ctx context.Context) error {
	// README begins
	// RECALL_RUNTIME_URL: the runtime role's URL (recall db url --runtime prints it for the
	// embedded database).
	// Open makes the pool (recall.PoolConfig) and warms each connection; built-in embedder,
	// no reranker.
	engine, err := recall.Open(ctx, os.Getenv("RECALL_RUNTIME_URL"), recall.Config{}, recall.PoolOptions{})
	if err != nil {
		return err
	}
	defer engine.Close()
	user := recall.User{ID: "ana", Read: []string{"team"}, Write: []string{"team"}}
	pack, err := engine.Recall(ctx, user, "When did Alice move to Lisbon?", 2000, nil)
	if err != nil {
		return err
	}
	for _, it := range pack.Items {
		fmt.Println(it.ExternalID, it.Provenance(), it.Text) // e.g. "m01 vector#1 bm25#1 mention#2 context#1 ..."
	}
	// README ends
	return nil
}

// TestREADMEShowsExampleOpen: the README's Go snippet is ExampleOpen's, so it compiles.
func TestREADMEShowsExampleOpen(t *testing.T) {
	t.Parallel()
	s, readme := withREADME(t, "example_open_test.go")
	begin := strings.Index(s, "\t// README begins\n")
	end := strings.Index(s, "\t// README ends\n")
	if begin < 0 || end < begin {
		t.Fatal("the README markers are missing")
	}
	var snippet strings.Builder
	for _, line := range strings.Split(s[begin:end], "\n")[1:] {
		snippet.WriteString(strings.TrimPrefix(line, "\t"))
		snippet.WriteString("\n")
	}
	want := "```go\n" + strings.TrimSuffix(snippet.String(), "\n") + "```\n"
	if !strings.Contains(readme, want) {
		t.Fatalf("README.md does not show ExampleOpen's code; it should hold:\n%s", want)
	}
}

// withREADME reads a source file of the package and the README.
func withREADME(t *testing.T, name string) (src, readme string) {
	t.Helper()
	var out [2]string
	for i, f := range []string{name, "README.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out[0], out[1]
}

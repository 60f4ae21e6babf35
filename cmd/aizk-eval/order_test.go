package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-engine/recall/ranker"
)

// notesSet writes a small BEIR set of notes whose ids differ from the toy's.
func notesSet(t *testing.T) string {
	t.Helper()
	var corpus, queries strings.Builder
	qrels := "query-id\tcorpus-id\tscore\n"
	topics := []string{"sailing regatta", "garden tomatoes", "violin lessons", "bread baking", "bicycle repair", "tax forms"}
	for i, topic := range topics {
		fmt.Fprintf(&corpus, `{"_id": "n%d", "title": "", "text": "A note about the %s, written down on day %d."}`+"\n", i, topic, i)
		fmt.Fprintf(&queries, `{"_id": "nq%d", "text": "What did I note about the %s?"}`+"\n", i, topic)
		qrels += fmt.Sprintf("nq%d\tn%d\t1\n", i, i)
	}
	return writeSet(t, corpus.String(), queries.String(), qrels, "train")
}

// writeSet writes a BEIR-format directory with its corpus, queries and the qrels of split.
func writeSet(t *testing.T, corpus, queries, qrels, split string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "qrels"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "qrels", split+".tsv"), []byte(qrels), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTracesOrderMix: traces writes every judged query's trace; order fits a model to it
// that the ranker reads, reports the fused and learned orders by folds; mix runs each set
// alone and together and reports both sets; and bench takes the model with --order.
func TestTracesOrderMix(t *testing.T) {
	t.Parallel()
	url := adminURL(t)
	dir := t.TempDir()
	traces, model := filepath.Join(dir, "toy.jsonl.gz"), filepath.Join(dir, "order.json")
	if _, errOut, code := run(t, url, "traces", "--dataset", toy, "--scope-field", "team", "--out", traces); code != 0 {
		t.Fatalf("traces: exit %d: %s", code, errOut)
	}
	tq, err := readTraces(traces)
	if err != nil || len(tq) == 0 || tq[0].Trace == nil || tq[0].Query.Meta["set"] != "beir-toy" {
		t.Fatalf("read %d traces: %v", len(tq), err)
	}
	out, errOut, code := run(t, url, "order", "--traces", traces, "--metric", "ndcg@10", "--folds-by", "team", "--out", model)
	if code != 0 {
		t.Fatalf("order: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"## In-sample", "## Held out by team", "## Every metric, held out by team", "| beir-toy | toy |"} {
		if !strings.Contains(out, want) {
			t.Fatalf("order's report lacks %q:\n%s", want, out)
		}
	}
	m, err := ranker.Load(model)
	if err != nil || m.Name != "order" || !strings.Contains(m.Fitted, "aizk-eval order") {
		t.Fatalf("the model file: %v %+v", err, m)
	}
	// --bags 3 with 2 trees a fit: one model holding the three fits' trees; --bags 0 is refused.
	bagged := filepath.Join(dir, "bagged.json")
	if _, errOut, code := run(t, url, "order", "--traces", traces, "--metric", "ndcg@10", "--trees", "2", "--bags", "3", "--out", bagged); code != 0 {
		t.Fatalf("order --bags 3: exit %d: %s", code, errOut)
	}
	if b, err := ranker.Load(bagged); err != nil || len(b.Trees) != 6 {
		t.Fatalf("the bagged model: %v, %d trees, want 6", err, len(b.Trees))
	}
	if _, errOut, code := run(t, url, "order", "--traces", traces, "--bags", "0", "--out", bagged); code != 2 || !strings.Contains(errOut, "--bags 0") {
		t.Fatalf("order --bags 0: exit %d: %s", code, errOut)
	}
	if _, errOut, code := run(t, url, "bench", "--dataset", toy, "--scope-field", "team", "--plans", "maximal", "--order", model); code != 0 {
		t.Fatalf("bench --order: exit %d: %s", code, errOut)
	}
	if _, errOut, code := run(t, url, "bench", "--dataset", toy, "--scope-field", "team", "--order", filepath.Join(dir, "none.json")); code != 2 || !strings.Contains(errOut, "--order") {
		t.Fatalf("bench with a missing model: exit %d: %s", code, errOut)
	}
	out, errOut, code = run(t, url, "mix", "--dataset", toy, "--scope-field", "team", "--with", notesSet(t), "--with-metric", "recall@10")
	if code != 0 {
		t.Fatalf("mix: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"| beir-toy | recall@10 | maximal |", "| recall@10 | maximal | 6 |"} {
		if !strings.Contains(out, want) {
			t.Fatalf("mix's report lacks %q:\n%s", want, out)
		}
	}
}

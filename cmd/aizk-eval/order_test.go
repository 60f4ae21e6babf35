package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recall-engine/recall/eval"
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
	// --kinds with five folds of the queries themselves: the toy's documents have no place,
	// so every weight the fit leaves is of the documents' block (the turns' block, fitted on
	// documents folded into it, is not kept for them: a turn of the toy has no place either).
	kinds := filepath.Join(dir, "kinds.json")
	out, errOut, code = run(t, url, "order", "--traces", traces, "--metric", "ndcg@10", "--kinds", "--trees", "2", "--folds-by", "id/5", "--out", kinds)
	if code != 0 || !strings.Contains(out, "## Held out by id/5") {
		t.Fatalf("order --kinds --folds-by id/5: exit %d: %s\n%s", code, errOut, out)
	}
	k, err := ranker.Load(kinds)
	if err != nil || k.Weights["doc_lane_bm25"] == 0 || len(k.Trees) != 4 {
		t.Fatalf("the kinds model: %v, doc_lane_bm25 %v, %d trees (want 2 a block)", err, k.Weights["doc_lane_bm25"], len(k.Trees))
	}
	if _, errOut, code := run(t, url, "order", "--traces", traces, "--kinds", "--bags", "2", "--out", kinds); code != 2 || !strings.Contains(errOut, "--kinds") {
		t.Fatalf("order --kinds --bags 2: exit %d: %s", code, errOut)
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

// threeTeams writes a BEIR set of notes kept by three teams, three questions each: each
// question names its note's topic, and a second note of its team asks about that topic, which
// the bm25 lane ranks first; north and south judge the first note, west the second.
func threeTeams(t *testing.T) string {
	t.Helper()
	var corpus, queries strings.Builder
	qrels := "query-id\tcorpus-id\tscore\n"
	topics := []string{"sailing regatta", "garden tomatoes", "violin lessons", "bread baking", "bicycle repair", "tax forms", "roof tiles", "chess openings", "river kayaks"}
	for i, topic := range topics {
		team := []string{"north", "south", "west"}[i%3]
		fmt.Fprintf(&corpus, `{"_id": "n%d", "title": "", "text": "Notes on the %s from day %d.", "metadata": {"team": %q}}`+"\n", i, topic, i, team)
		fmt.Fprintf(&corpus, `{"_id": "m%d", "title": "", "text": "The %s? Did I note the %s? What %s?", "metadata": {"team": %q}}`+"\n", i, topic, topic, topic, team)
		fmt.Fprintf(&queries, `{"_id": "q%d", "text": "What did I note about the %s?", "metadata": {"team": %q}}`+"\n", i, topic, team)
		judged := "n" // west judges the other note: a fit on west alone learns the opposite
		if team == "west" {
			judged = "m"
		}
		qrels += fmt.Sprintf("q%d\t%s%d\t1\n", i, judged, i)
	}
	return writeSet(t, corpus.String(), queries.String(), qrels, "test")
}

// TestOrderCurve: --curve fits on each value alone and scores every value, the in-sample
// cells on the diagonal; its last row, the fit on every other value, averages to the figure
// --folds-by reports for the same fits; a field of fewer than three values is refused
// before any fit.
func TestOrderCurve(t *testing.T) {
	t.Parallel()
	url := adminURL(t)
	dir := t.TempDir()
	traces := filepath.Join(dir, "teams.jsonl.gz")
	if _, errOut, code := run(t, url, "traces", "--dataset", threeTeams(t), "--scope-field", "team", "--out", traces); code != 0 {
		t.Fatalf("traces: exit %d: %s", code, errOut)
	}
	out, errOut, code := run(t, url, "order", "--traces", traces, "--metric", "mrr@10", "--folds-by", "team", "--curve", "team", "--out", filepath.Join(dir, "o.json"))
	if code != 0 {
		t.Fatalf("order --curve: exit %d: %s", code, errOut)
	}
	_, curve, ok := strings.Cut(out, "## Learning curve by team")
	if !ok {
		t.Fatalf("no curve in:\n%s", out)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(curve, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) == 4 && cells[0] != "fitted on" && cells[0] != "---" {
			rows[cells[0]] = cells[1:]
		}
	}
	var off float64 // the held-out cells: three queries each, as many as the teams
	for i, team := range []string{"north", "south", "west"} {
		for j, cell := range rows[team] {
			if strings.HasSuffix(cell, "(in sample)") != (i == j) {
				t.Fatalf("row %s, column %d: %q: in sample on the diagonal only:\n%s", team, j, cell, curve)
			}
			var v float64
			if _, err := fmt.Sscan(cell, &v); err != nil {
				t.Fatalf("cell %q: %v", cell, err)
			}
			if i != j {
				off += v / 6
			}
		}
	}
	// West judges the other note: a fit on north scores south fully and west not.
	if rows["north"][1] != "1.0000" || rows["north"][2] == "1.0000" {
		t.Fatalf("fitted on north: %v, want south 1.0000 and west below:\n%s", rows["north"], curve)
	}
	// Every judged note is in its question's head: a perfect order scores 1.
	if !strings.Contains(curve, "a perfect order of the heads 1.0000") || rows["a perfect order of the same heads"][2] != "1.0000" {
		t.Fatalf("the perfect order is not 1:\n%s", curve)
	}
	if want := fmt.Sprintf("fitted on one value %.4f", off); !strings.Contains(curve, want) {
		t.Fatalf("the summary lacks %q (the held-out cells' mean):\n%s", want, curve)
	}
	var sum float64
	for _, cell := range rows["every other value"] {
		var v float64
		if _, err := fmt.Sscan(cell, &v); err != nil {
			t.Fatalf("cell %q: %v", cell, err)
		}
		sum += v * 3 // three queries a team
	}
	_, held, _ := strings.Cut(out, "## Held out by team")
	var fused, learned float64
	_, row, _ := strings.Cut(held, "| teams | 9 | mrr@10 | ")
	if _, err := fmt.Sscanf(row, "%f | %f", &fused, &learned); err != nil {
		t.Fatalf("held-out table: %v:\n%s", err, held)
	}
	if got := sum / 9; math.Abs(got-learned) > 0.0005 {
		t.Fatalf("the curve's last row averages %.4f; --folds-by team reports %.4f", got, learned)
	}
	if _, errOut, code := run(t, url, "order", "--traces", traces, "--curve", "set", "--out", filepath.Join(dir, "o.json")); code != 2 || !strings.Contains(errOut, "--curve set") {
		t.Fatalf("order --curve set (one value): exit %d: %s", code, errOut)
	}
}

// TestGroupsByFolds: "conv/3" deals conv's values, in sorted order, into three folds, a
// value's queries staying together; a plain field groups by value; "(none)"-like values of
// queries without the field are a value like any other.
func TestGroupsByFolds(t *testing.T) {
	t.Parallel()
	var qs []orderQuery
	for _, c := range []string{"d", "a", "b", "a", "e", "c", "d"} {
		qs = append(qs, orderQuery{tracedQuery: tracedQuery{Query: eval.Query{Meta: map[string]any{"conv": c}}}})
	}
	qs = append(qs, orderQuery{tracedQuery: tracedQuery{Query: eval.Query{Meta: map[string]any{}}}})
	names, groups := groupsBy(qs, "conv/3")
	// Sorted values: <nil>, a, b, c, d, e -> folds 1, 2, 3, 1, 2, 3.
	want := map[string][]int{"conv 1/3": {7, 5}, "conv 2/3": {1, 3, 0, 6}, "conv 3/3": {2, 4}}
	if !slices.Equal(names, []string{"conv 1/3", "conv 2/3", "conv 3/3"}) {
		t.Fatalf("folds %v", names)
	}
	for f, w := range want {
		if !slices.Equal(groups[f], w) {
			t.Errorf("%s: %v, want %v", f, groups[f], w)
		}
	}
	if names, _ := groupsBy(qs, "conv"); len(names) != 6 {
		t.Fatalf("by value: %v, want six", names)
	}
}

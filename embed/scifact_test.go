package embed_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/eval"
)

// scifactDir is BEIR SciFact, next to the checkout in the workplace; RECALL_SCIFACT overrides.
func scifactDir(t testing.TB) string {
	dir := os.Getenv("RECALL_SCIFACT")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "data", "scifact")
	}
	if _, err := os.Stat(filepath.Join(dir, "corpus.jsonl")); err != nil {
		t.Skipf("SciFact not found at %s (set RECALL_SCIFACT)", dir)
	}
	return dir
}

// denseNDCG ranks the whole corpus by cosine to each judged query and returns mean nDCG@10.
func denseNDCG(t testing.TB, e embed.Embedder, split string) float64 {
	d, err := eval.LoadBEIR(scifactDir(t), split)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	texts := make([]string, len(d.Corpus))
	for i, doc := range d.Corpus {
		texts[i] = doc.Title + "\n" + doc.Text
	}
	docs, err := e.Embed(ctx, texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	n := 0
	for qid, rel := range d.Qrels {
		qv, err := e.Embed(ctx, []string{d.Queries[qid]}, embed.Query)
		if err != nil {
			t.Fatal(err)
		}
		type hit struct {
			id  string
			sim float32
		}
		hits := make([]hit, len(docs))
		for i, v := range docs {
			var s float32
			for j := range v {
				s += v[j] * qv[0][j]
			}
			hits[i] = hit{d.Corpus[i].ID, s}
		}
		sort.Slice(hits, func(i, j int) bool { return hits[i].sim > hits[j].sim })
		ranked := make([]string, 10)
		for i := range ranked {
			ranked[i] = hits[i].id
		}
		sum += eval.NDCG(ranked, rel, 10)
		n++
	}
	return sum / float64(n)
}

// TestHashingSciFact: the built-in embedder alone, exact search, on SciFact's test queries,
// as shipped and fitted (IDF) on the corpus. Floors a little under the measured figures
// (0.459 and 0.511; chance is about 0.001) catch a broken tokenizer, hash or weighting.
func TestHashingSciFact(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	h, err := embed.NewHashing(0)
	if err != nil {
		t.Fatal(err)
	}
	got := denseNDCG(t, h, "test")
	t.Logf("%s nDCG@10 on SciFact test: %.4f", h.Name(), got)
	if got < 0.44 {
		t.Fatalf("nDCG@10 %.4f below the floor 0.44", got)
	}
	d, err := eval.LoadBEIR(scifactDir(t), "test")
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(d.Corpus))
	for i, doc := range d.Corpus {
		texts[i] = doc.Title + "\n" + doc.Text
	}
	got = denseNDCG(t, h.Fit(texts), "test")
	t.Logf("%s fitted on the corpus: nDCG@10 %.4f", h.Name(), got)
	if got < 0.49 {
		t.Fatalf("fitted nDCG@10 %.4f below the floor 0.49", got)
	}
}

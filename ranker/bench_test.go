package ranker_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

// BenchmarkOrder measures what the learned order adds to a recall: the features of a head of
// 100 conversation turns (ten sources of ten places, found by a mix of lanes) and the default
// model's order of them, and with RECALL_BENCH_ORDER_MODEL a model file's beside it. Compare
// it with a recall's milliseconds (BENCHMARKS.md).
func BenchmarkOrder(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := []string{"harbor", "crane", "broke", "week", "Ana", "Bo", "painting", "trip", "Lisbon", "river", "moved", "dog", "puppy", "yes", "great", "thanks"}
	head := make([]statement.Candidate, 100)
	for i := range head {
		var text string
		for range 8 + r.IntN(20) {
			text += vocab[r.IntN(len(vocab))] + " "
		}
		c := statement.Candidate{ID: int64(i + 1), Text: text, Speaker: vocab[4+r.IntN(2)],
			Source: &statement.Source{ID: int64(i / 10), ExternalID: fmt.Sprint(i / 10)}, Position: i%10 + 1}
		for l := range statement.Lane(statement.NumLanes) {
			if r.IntN(3) == 0 {
				c.Lanes[l] = statement.LaneHit{Rank: 1 + r.IntN(100), Score: r.Float64()}
			}
		}
		head[i] = c
	}
	q := "When did the harbor crane break, Ana?"
	models := map[string]*ranker.Model{"default": ranker.DefaultModel()}
	if f := os.Getenv("RECALL_BENCH_ORDER_MODEL"); f != "" { // another model file beside it
		m, err := ranker.Load(f)
		if err != nil {
			b.Fatal(err)
		}
		models["file"] = m
	}
	// What the engine's learned order needs of the model (the order and each score): the
	// default model's scores computed once (Ranked), beside computing them again after Order.
	xs := ranker.Extract(q, head, 30)
	b.Run("ranked", func(b *testing.B) {
		for b.Loop() {
			ranker.DefaultModel().Ranked(xs)
		}
	})
	b.Run("order-then-score", func(b *testing.B) {
		m := ranker.DefaultModel()
		for b.Loop() {
			for _, j := range m.Order(xs) {
				m.Score(xs[j])
			}
		}
	})
	// Long texts, as an assistant's replies are (about 250 words each, LongMemEval's): the
	// features alone, which read every candidate's words.
	long := make([]statement.Candidate, len(head))
	for i, c := range head {
		var text string
		for j := range 200 + r.IntN(100) {
			w := fmt.Sprintf("word%d", r.IntN(3000))
			if j%12 == 0 {
				w = "The " + vocab[r.IntN(len(vocab))]
			}
			text += w + " "
		}
		c.Text = text
		long[i] = c
	}
	b.Run("extract-long", func(b *testing.B) {
		for b.Loop() {
			ranker.Extract(q, long, 30)
		}
	})
	for _, name := range []string{"default", "file"} {
		if m := models[name]; m != nil {
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					m.Order(ranker.Extract(q, head, 30))
				}
			})
		}
	}
}

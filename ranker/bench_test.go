package ranker_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

// BenchmarkOrder measures what the learned order adds to a recall: the features of a head of
// 100 conversation turns (ten sources of ten places, found by a mix of lanes) and the default
// model's order of them. Compare it with a recall's milliseconds (BENCHMARKS.md).
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
	m := ranker.DefaultModel()
	q := "When did the harbor crane break, Ana?"
	b.ResetTimer()
	for b.Loop() {
		m.Order(ranker.Extract(q, head, 30))
	}
}

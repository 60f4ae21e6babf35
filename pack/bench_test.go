package pack

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/statement"
)

// BenchmarkFill measures the pack stage of a recall of long memories (100 candidates of about
// 250 words, as LongMemEval's assistant replies are, half of them turns of ten sources) into a
// budget that holds them all (what an evaluation's ranking asks) and into 1,000 tokens.
func BenchmarkFill(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	ordered := make([]Ranked, 100)
	for i := range ordered {
		var w []string
		for j := range 200 + r.IntN(100) {
			if j%15 == 14 {
				w = append(w, "Done.")
				continue
			}
			w = append(w, fmt.Sprintf("Word%d", r.IntN(3000)))
		}
		c := statement.Candidate{ID: int64(i + 1), ExternalID: fmt.Sprint(i), Text: strings.Join(w, " ")}
		if i%2 == 0 {
			c.Source, c.Position = &statement.Source{ID: int64(i % 10), ExternalID: fmt.Sprint(i % 10)}, i/10+1
		}
		ordered[i] = Ranked{Candidate: c, FusedRank: i + 1}
	}
	for _, budgetTokens := range []int{1 << 20, 1000} {
		b.Run(fmt.Sprintf("budget=%d", budgetTokens), func(b *testing.B) {
			for b.Loop() {
				var p Pack
				Fill(&p, Input{Ordered: ordered, ContextHits: 3, Budget: budgetTokens, Tokens: budget.Bytes4{}})
			}
		})
	}
}

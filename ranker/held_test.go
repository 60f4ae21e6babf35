package ranker

import (
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestHeldPassesOverOnlyWhatCannotMatch: held, which passes over the words that cannot be one
// of the question's terms, reads what the plain rule reads (every content word of scan
// looked up, a pair where two of the question's terms follow each other): the same terms,
// pairs, fields and self words, on random texts and questions of mixed case, stop and self
// words, digits, apostrophes, accents and other scripts, including a question whose terms
// hold the empty stem ("'s").
func TestHeldPassesOverOnlyWhatCannotMatch(t *testing.T) {
	plain := func(text string, qTerms map[string]bool, qPairs map[pair]bool) reading {
		terms, matched := map[string]bool{}, map[pair]bool{}
		prev, prevHeld := "", false
		fields, self := scan(text, func(t string) {
			isHeld := qTerms[t]
			if isHeld {
				terms[t] = true
				if prevHeld && qPairs[pair{prev, t}] {
					matched[pair{prev, t}] = true
				}
			}
			prev, prevHeld = t, isHeld
		})
		return reading{terms: terms, pairs: len(matched), fields: fields, self: self}
	}
	pieces := []string{"The", "harbor", "Harbor", "crane", "cranes'", "CRANE", "dog's", "'s", "Going", "go", "liked", "cities", "city",
		"is", "what", "I", "I'm", "my", "Mine", "me", "Ice", "moved", "a", "É", "école", "Élan", "İ", "ß", "日本", "42", "4th", "'tis", "dÉcor", "décor", "Décor", "x's", "X", "xylo",
		" ", " ", " ", "  ", "\t", "\n", "\u00a0", ",", ".", "?", "-", "'", "_"}
	r := rand.New(rand.NewPCG(3, 5))
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	empty := 0
	for i := range 20000 {
		q := text(1 + r.IntN(12))
		if i%10 == 0 {
			q += " 's harbor"
		}
		qTerms, qPairs := Terms(q), pairs(q)
		if qTerms[""] {
			empty++
		}
		c := text(r.IntN(60))
		got, want := newHeldReader(qTerms, qPairs).held(c), plain(c, qTerms, qPairs)
		if !maps.Equal(got.terms, want.terms) || got.pairs != want.pairs || got.fields != want.fields || got.self != want.self {
			t.Fatalf("held(%q) for %q = %+v, want %+v", c, q, got, want)
		}
	}
	if empty == 0 {
		t.Fatal("no question held the empty stem: the fixture misses that case")
	}
}

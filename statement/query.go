package statement

import (
	"strings"
	"time"
	"unicode"
)

// Query is one recall's input to the statement.
type Query struct {
	Text     string    // search text: BM25 (after the speaker rewrite)
	Raw      string    // the raw question: titles, entity mentions
	Vector   []float32 // query embedding; its length must equal the statement's dimension
	Mentions []string  // lowered entity mentions; nil: Mentions(Raw)
	// Window is the query's time window [Start, End); zero: no temporal lane input.
	WindowStart, WindowEnd time.Time
	Filters                Filters
	Now                    time.Time // for recency; zero: time.Now()
}

// Mentions returns the lowered word n-grams (1 to 4 words) of s, the candidate entity
// mentions matched exactly against entity names and aliases. At most 256, in order of
// appearance.
func Mentions(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-' && r != '.' && r != '&'
	})
	for i, w := range words {
		words[i] = strings.Trim(w, "'-.&")
	}
	seen := map[string]bool{}
	out := []string{}
	for i := range words {
		for n := 1; n <= 4 && i+n <= len(words); n++ {
			g := strings.Join(words[i:i+n], " ")
			if g == "" || strings.HasPrefix(g, " ") || strings.HasSuffix(g, " ") || seen[g] {
				continue
			}
			seen[g] = true
			out = append(out, g)
			if len(out) == 256 {
				return out
			}
		}
	}
	return out
}

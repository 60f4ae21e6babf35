package ranker_test

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

// TestTermsByRune: a text's terms and its length (the log_len feature) equal the rule written
// rune by rune with package unicode: a word is a run of letters, digits and apostrophes,
// lowered; a term is a word that is not a stop word and has two runes or more, its
// possessive and one common suffix off; the length is the count of whitespace-separated
// fields. Random texts of ASCII, accented and other scripts' letters, digits, Unicode spaces
// and punctuation (the scan reads ASCII by a table).
func TestTermsByRune(t *testing.T) {
	stop := map[string]bool{"the": true, "is": true, "what": true, "a": true, "i": true}
	stem := func(w string) string {
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
		for _, suf := range []string{"ing", "ies", "ed", "es", "s"} {
			if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
				return strings.TrimSuffix(w, suf)
			}
		}
		return w
	}
	ref := func(text string) map[string]bool {
		out := map[string]bool{}
		for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '\'' }) {
			if w = strings.ToLower(w); !stop[w] && len([]rune(w)) >= 2 {
				out[stem(w)] = true
			}
		}
		return out
	}
	pieces := []string{"The", "harbor", "cranes'", "dog's", "Going", "liked", "cities", "is", "what", "I", "a", "É", "école", "İ", "ß",
		"日本", "٣٤", "²", "42", " ", "  ", "\t", "\n", "\u00a0", "\u2003", ",", ".", "?", "-", "'", "_", "@"}
	r := rand.New(rand.NewPCG(8, 9))
	for range 3000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		// The stop words above are in the ranker's list; the others are not.
		if got, want := ranker.Terms(text), ref(text); !maps.Equal(got, want) {
			t.Fatalf("Terms(%q) = %v, want %v", text, got, want)
		}
		c := statement.Candidate{ID: 1, Text: text}
		x := ranker.Extract("harbor", []statement.Candidate{c}, 30)[0]
		want := math.Log(1 + float64(len(strings.Fields(text))))
		if got := x[slices.Index(ranker.Features, "doc_log_len")]; math.Abs(got-want) > 1e-12 {
			t.Fatalf("log_len of %q = %v, want %v", text, got, want)
		}
	}
}

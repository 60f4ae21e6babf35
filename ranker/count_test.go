package ranker

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/recall-engine/recall/statement"
)

func TestAsksCount(t *testing.T) {
	for q, want := range map[string]bool{
		"How many musical instruments do I currently own?":           true,
		"How much did I spend on the bike in total?":                 true,
		"What is the total number of fish in both of my aquariums?":  true,
		"How long have I been working before I started at NovaTech?": false,
		"When did Caroline go to the support group?":                 false,
		"Which of my friends can count on me?":                       false,
	} {
		if got := asksCount(q); got != want {
			t.Errorf("asksCount(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestQuantity(t *testing.T) {
	for text, want := range map[string]bool{
		"I actually have 25 rare coins.":           true,
		"We adopted two kittens last spring.":      true,
		"A couple of days ago I baked bread.":      true,
		"That was the one I liked most.":           false,
		"Sounds great, thanks for the tip!":        false,
		"It costs $1,200 and ships within a week.": true,
	} {
		if got := quantity(text); got != want {
			t.Errorf("quantity(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestQuantityCount: a candidate that states a quantity has quantity_count only when the
// question asks for a count.
func TestQuantityCount(t *testing.T) {
	head := []statement.Candidate{{ID: 1, Text: "I have 12 rare figurines."}, {ID: 2, Text: "I love my figurines."}}
	for q, want := range map[string][2]float64{
		"How many rare items do I have?": {1, 0},
		"Which figurines do I have?":     {0, 0},
	} {
		xs := Extract(q, head, 2)
		for i := range head {
			if got := xs[i][index["doc_quantity_count"]]; got != want[i] {
				t.Errorf("%q: candidate %d doc_quantity_count = %v, want %v", q, head[i].ID, got, want[i])
			}
		}
		if xs[0][index["doc_quantity"]] != 1 || xs[1][index["doc_quantity"]] != 0 {
			t.Errorf("%q: doc_quantity %v, %v, want 1, 0", q, xs[0][index["doc_quantity"]], xs[1][index["doc_quantity"]])
		}
	}
}

// TestQuantityAgainstWords: quantity reads the text as its words would (lowerWords) on
// random texts of number words, other words, digits, apostrophes and non-ASCII letters.
func TestQuantityAgainstWords(t *testing.T) {
	ref := func(text string) bool {
		if strings.IndexFunc(text, unicode.IsDigit) >= 0 {
			return true
		}
		for _, w := range lowerWords(text) {
			if quantityWords[w] {
				return true
			}
		}
		return false
	}
	pieces := []string{"Two", "twelve", "one", "ones", "Hundreds", "dozen's", "thirty-", "é", "naïve", "ten", "tent", " ", ",", "'", "x", "3", "couple", "COUPLE", "fortyfortyforty", "\n"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		if got, want := quantity(b.String()), ref(b.String()); got != want {
			t.Fatalf("quantity(%q) = %v, want %v", b.String(), got, want)
		}
	}
}

// TestQuantityByRune: quantity, which reads ASCII by ranges and looks up only words of a
// number word's length and first letter, says what the rule read rune by rune with package
// unicode says (a digit anywhere, or a word of letters and apostrophes, lowered, that is a
// number word), on random texts of number words in any case, digits of other scripts, other
// scripts' letters, apostrophes and punctuation.
func TestQuantityByRune(t *testing.T) {
	plain := func(text string) bool {
		var b strings.Builder
		for _, r := range text {
			switch {
			case unicode.IsDigit(r):
				return true
			case unicode.IsLetter(r) || r == '\'':
				b.WriteRune(unicode.ToLower(r))
			default:
				if quantityWords[b.String()] {
					return true
				}
				b.Reset()
			}
		}
		return quantityWords[b.String()]
	}
	pieces := []string{"two", "Two", "TWELVE", "dozen", "thousands", "one", "twos", "tw", "o", "couple", "Couple's", "'", "hundred",
		"é", "Ü", "twé", "日本", "٣", "²", " ", ",", ".", "-", "\n", "a", "the", "seven", "seventy", "Ten", "ten'", "DOZEN", "Dozens"}
	r := rand.New(rand.NewPCG(21, 34))
	hits := 0
	for range 50000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		want := plain(text)
		if got := quantity(text); got != want {
			t.Fatalf("quantity(%q) = %v, want %v", text, got, want)
		}
		if want {
			hits++
		}
	}
	if hits < 1000 {
		t.Fatalf("only %d texts state a quantity: the fixture measures little", hits)
	}
}

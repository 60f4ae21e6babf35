package ranker

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// asksCount reports whether the question asks for a count or an amount ("how many", "how
// much", "in total", "altogether", "the number of"): its evidence is the memories that each
// state a part of it, and those say a quantity more often than the others ("I have 25 rare
// coins", "10 neon tetras"): the quantity_count feature.
func asksCount(question string) bool {
	w := lowerWords(question)
	for i, s := range w {
		next := ""
		if i+1 < len(w) {
			next = w[i+1]
		}
		switch {
		case s == "how" && (next == "many" || next == "much"),
			s == "total", s == "altogether", s == "combined", // "in total", "the total number"
			s == "number" && next == "of":
			return true
		}
	}
	return false
}

// quantityWords are the number words a quantity is said with besides digits ("one" is left
// out: "one of them", "the one I liked" say no quantity).
var quantityWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("two three four five six seven eight nine ten eleven twelve dozen dozens twenty thirty forty fifty hundred hundreds thousand thousands couple") {
		m[w] = true
	}
	return m
}()

// quantity reports whether text states a quantity: a digit, or a number word. It reads the
// text once without allocating: the order computes it for every candidate of every recall. A
// word is looked up only when its length and first letter are a number word's.
func quantity(text string) bool {
	var buf [12]byte // the longest number word is 9 letters
	n, long := 0, false
	end := func() bool {
		hit := !long && n >= minQuantityWord && n <= maxQuantityWord && quantityFirst[buf[0]] && quantityWords[string(buf[:n])]
		n, long = 0, false
		return hit
	}
	for i := 0; i < len(text); {
		r := rune(text[i])
		if r < utf8.RuneSelf {
			i++
			switch {
			case '0' <= r && r <= '9':
				return true
			case 'a' <= r && r <= 'z' || r == '\'':
				if n < len(buf) {
					buf[n] = byte(r)
					n++
				} else {
					long = true
				}
			case 'A' <= r && r <= 'Z':
				if n < len(buf) {
					buf[n] = byte(r) + 'a' - 'A'
					n++
				} else {
					long = true
				}
			default:
				if end() {
					return true
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case unicode.IsDigit(r):
			return true
		case unicode.IsLetter(r):
			long = true // no number word has a letter past ASCII
		default:
			if end() {
				return true
			}
		}
	}
	return end()
}

// minQuantityWord, maxQuantityWord and quantityFirst bound quantityWords: their lengths and
// first letters.
var minQuantityWord, maxQuantityWord, quantityFirst = func() (lo, hi int, first [utf8.RuneSelf]bool) {
	lo = 1 << 30
	for w := range quantityWords {
		lo, hi = min(lo, len(w)), max(hi, len(w))
		first[w[0]] = true
	}
	return lo, hi, first
}()

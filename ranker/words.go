package ranker

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A candidate's and the question's words, as the features read them: content words
// (stemmed, stop words out), their adjacent pairs, and plain lowered words for names.

// wordKind says what a word is to the features: a stop word, a word a speaker uses of themself,
// or both ("my"); read with one lookup a word.
type wordKind uint8

const (
	stopWord wordKind = 1 << iota // frames a question rather than says what it is about
	selfWord                      // a speaker's word for themself: what tells a user, who speaks of their life, from an assistant, who speaks of the user's (self_talk)
)

// wordKinds are the words with a kind.
var wordKinds = func() map[string]wordKind {
	m := map[string]wordKind{}
	for _, w := range strings.Fields(`a an the and or but if of to in on at by for with about as into from up down over under
		is are was were be been being am do does did done have has had having i me my mine we our us you your he him his she her
		it its they them their what which who whom whose when where why how that this these those there here not no yes so too
		very can could would should will shall may might must s t just than then also any some all each every both few more most
		other such only own same again further once out off through during before after above below between because until while
		get got like really`) {
		m[w] |= stopWord
	}
	for _, w := range strings.Fields(`i me my mine myself i'm i've i'd i'll`) {
		m[w] |= selfWord
	}
	return m
}()

// stem is a crude English stem of a lowered word: a possessive and one common suffix off.
func stem(w string) string {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
	if n := len(w); n == 0 || w[n-1] != 's' && w[n-1] != 'g' && w[n-1] != 'd' {
		return w // no suffix below ends otherwise
	}
	for _, suf := range []string{"ing", "ies", "ed", "es", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

// asciiSpace and asciiWord are package unicode's answers for ASCII, looked up: whether a
// character is a space, and whether it is part of a word (a letter, a digit, an apostrophe).
var asciiSpace, asciiWord = func() (space, word [utf8.RuneSelf]bool) {
	for r := range rune(utf8.RuneSelf) {
		space[r], word[r] = unicode.IsSpace(r), unicode.IsLetter(r) || unicode.IsNumber(r) || r == '\''
	}
	return space, word
}()

// scan calls fn with each content word of text in order, lowered and stemmed (a word: a run
// of letters, digits and apostrophes; a content word: not a stop word, two runes or more),
// and returns how many whitespace-separated fields text has and how many of its words are
// selfWord.
func scan(text string, fn func(term string)) (fields, self int) {
	return scanSkipping(text, nil, fn)
}

// scanSkipping is scan that passes over a word whose first character is ASCII when skip
// (not nil) says so of its first byte, lowered, and its second as it is (0 for a word of one
// byte): the word is not lowered, looked up or given to fn. A word that may be a selfWord
// (its first letter i or m) is never passed over, so the counts are scan's.
func scanSkipping(text string, skip func(first, second byte) bool, fn func(term string)) (fields, self int) {
	inField := false
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		if b := lowerASCII(text[start]); skip != nil && b < utf8.RuneSelf && b != 'i' && b != 'm' {
			var b2 byte // a word of one byte
			if end-start > 1 {
				b2 = text[start+1]
			}
			if skip(b, b2) {
				start = -1
				return
			}
		}
		lw := strings.ToLower(text[start:end])
		start = -1
		k := wordKinds[lw]
		if k&selfWord != 0 {
			self++
		}
		if k&stopWord != 0 || utf8.RuneCountInString(lw) < 2 {
			return
		}
		fn(stem(lw))
	}
	for i, r := range text {
		space, word := false, false
		if r < utf8.RuneSelf {
			space, word = asciiSpace[r], asciiWord[r]
		} else {
			space, word = unicode.IsSpace(r), unicode.IsLetter(r) || unicode.IsNumber(r)
		}
		if space {
			inField = false
		} else if !inField {
			inField = true
			fields++
		}
		if word {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
	return fields, self
}

// Terms are a text's content words, stemmed: what "cover" compares.
func Terms(text string) map[string]bool {
	out := map[string]bool{}
	scan(text, func(t string) { out[t] = true })
	return out
}

// pair is two adjacent content words, in order.
type pair [2]string

// pairs are a text's adjacent content words (Terms' stems), in order: {"harbor", "crane"}.
func pairs(text string) map[pair]bool {
	out := map[pair]bool{}
	prev := ""
	scan(text, func(t string) {
		if prev != "" {
			out[pair{prev, t}] = true
		}
		prev = t
	})
	return out
}

// reading is what held reads of a candidate's text.
type reading struct {
	terms        map[string]bool // the question's terms it holds
	pairs        int             // how many of the question's pairs it holds
	fields, self int             // its whitespace-separated fields, and its selfWord words
}

// notASCII stands for a byte past ASCII in scanSkipping's skip.
const notASCII = utf8.RuneSelf

// lowerASCII is an ASCII letter lowered, notASCII for a byte past ASCII, any other as it is.
func lowerASCII(b byte) byte {
	switch {
	case 'A' <= b && b <= 'Z':
		return b + 'a' - 'A'
	case b >= utf8.RuneSelf:
		return notASCII
	}
	return b
}

// heldReader reads candidates' texts against one question's terms and pairs (held).
type heldReader struct {
	terms map[string]bool
	pairs map[pair]bool
	// What a word's first two bytes say: a term starts with the first (first), one of them
	// is a byte long or has a second byte past ASCII (loose), a term starts with both (two).
	// A term is a prefix of its word (stem cuts only the end), so a word whose first bytes
	// none starts with is none of them.
	first, loose [utf8.RuneSelf]bool
	two          [utf8.RuneSelf][utf8.RuneSelf]bool
	all          bool // a term is empty (a word that stems to nothing, "'s"): every word is read
}

func newHeldReader(qTerms map[string]bool, qPairs map[pair]bool) *heldReader {
	h := &heldReader{terms: qTerms, pairs: qPairs, all: qTerms[""]}
	for t := range qTerms {
		if t == "" || t[0] >= utf8.RuneSelf {
			continue // a word starting past ASCII is always read
		}
		h.first[t[0]] = true
		if len(t) == 1 || t[1] >= utf8.RuneSelf {
			h.loose[t[0]] = true
		} else {
			h.two[t[0]][t[1]] = true
		}
	}
	return h
}

// held reads a candidate's text once. A word that cannot be one of the question's terms (by
// its first two bytes) is passed over unless the word before was one, where it would end a
// pair: most of a long reply's words are never lowered or stemmed.
func (h *heldReader) held(text string) reading {
	terms, matched := map[string]bool{}, map[pair]bool{}
	prev, prevHeld := "", false
	var skip func(byte, byte) bool
	if !h.all {
		skip = func(b, second byte) bool {
			if prevHeld || !h.first[b] {
				return !prevHeld
			}
			b2 := lowerASCII(second)
			return !h.loose[b] && b2 != notASCII && !h.two[b][b2]
		}
	}
	fields, self := scanSkipping(text, skip, func(t string) {
		// A pair of the question's is two of its terms: only then is it looked up.
		isHeld := h.terms[t]
		if isHeld {
			terms[t] = true
			if prevHeld && h.pairs[pair{prev, t}] {
				matched[pair{prev, t}] = true
			}
		}
		prev, prevHeld = t, isHeld
	})
	return reading{terms: terms, pairs: len(matched), fields: fields, self: self}
}

// words are a text's words, lowered, for name matching.
func words(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}

// lowerWords are text's words, lowered: runs of letters and apostrophes.
func lowerWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
}

// speakerNamed reports whether the question's words name speaker: every word of a one-word
// name, or the first or last word of a longer one.
func speakerNamed(q map[string]bool, speaker string) bool {
	parts := strings.FieldsFunc(strings.ToLower(speaker), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(parts) == 0 {
		return false
	}
	return q[parts[0]] || q[parts[len(parts)-1]]
}

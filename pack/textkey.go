package pack

import (
	"iter"
	"unicode"
	"unicode/utf8"
)

// sayKey is what a memory says, for restatements: its kind, its speaker and its TextKey.
type sayKey struct{ kind, speaker, text string }

// TextKey is a text as the restatement rule compares it: lowered, every run of characters
// that are neither letters nor digits one space, trimmed (recall.text_key in SQL, migration
// 00011, which the write path's duplicate policy compares).
func TextKey(text string) string {
	out := make([]byte, 0, len(text))
	for r, gap := range keyRunes(text) {
		if gap {
			out = append(out, ' ')
		}
		out = utf8.AppendRune(out, r)
	}
	return string(out)
}

// keyRunes yields the letters and digits of text, lowered, in order: the runes of its
// TextKey but the spaces, each with whether a space comes before it there.
func keyRunes(text string) iter.Seq2[rune, bool] {
	return func(yield func(rune, bool) bool) {
		gap, seen := false, false
		for i := 0; i < len(text); {
			var r rune
			if c := text[i]; c < utf8.RuneSelf {
				i++
				r = rune(keyASCII[c])
			} else {
				var n int
				r, n = utf8.DecodeRuneInString(text[i:])
				i += n
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					r = unicode.ToLower(r)
				} else {
					r = 0
				}
			}
			if r == 0 {
				gap = seen
				continue
			}
			if !yield(r, gap) {
				return
			}
			gap, seen = false, true
		}
	}
}

// keyASCII is TextKey's rule for ASCII, looked up: a letter or digit lowered, 0 for any other.
var keyASCII = func() (t [utf8.RuneSelf]byte) {
	for c := range rune(utf8.RuneSelf) {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			t[c] = byte(unicode.ToLower(c))
		}
	}
	return t
}()

// keySig is a cheap signature of a memory's sayKey: two memories whose sayKeys are equal
// have equal signatures (the same kind and speaker, and the same count and sum of their
// TextKeys' runes), so a memory whose signature no other candidate has restates none.
type keySig struct {
	kind, speaker string
	runes         int
	sum           uint64
}

// signature is text's keySig, read without building its TextKey.
func signature(kind, speaker, text string) keySig {
	s := keySig{kind: kind, speaker: speaker}
	for r := range keyRunes(text) {
		s.runes++
		s.sum += uint64(r)
	}
	return s
}

package pack

import (
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
	gap := false
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			i++
			if k := keyASCII[c]; k == 0 {
				gap = len(out) > 0
			} else {
				if gap {
					out, gap = append(out, ' '), false
				}
				out = append(out, k)
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			gap = len(out) > 0
			continue
		}
		if gap {
			out, gap = append(out, ' '), false
		}
		out = utf8.AppendRune(out, unicode.ToLower(r))
	}
	return string(out)
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
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			i++
			if k := keyASCII[c]; k != 0 {
				s.runes++
				s.sum += uint64(k)
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			s.runes++
			s.sum += uint64(unicode.ToLower(r))
		}
	}
	return s
}

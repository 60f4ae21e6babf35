// Package jsoncheck finds what JSON decoding would change silently: a \u escape of half a
// UTF-16 surrogate pair, which encoding/json turns into U+FFFD. Raw invalid UTF-8 is refused
// by the callers before decoding (utf8.Valid); an escaped lone surrogate is the same damage
// written another way, and is refused the same way.
package jsoncheck

// LoneSurrogate returns the byte offset of the first \u escape in a JSON string of b that
// is half a surrogate pair without its other half (a high one not followed by a low one, or
// a low one not after a high one), and whether there is one. b need not be valid JSON.
func LoneSurrogate(b []byte) (int, bool) {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if i+1 >= len(b) {
				return 0, false
			}
			if b[i+1] != 'u' {
				i++ // a one-character escape: skip what it escapes
				continue
			}
			v, ok := hex4(b, i+2)
			if !ok {
				i++
				continue
			}
			switch {
			case v >= 0xD800 && v <= 0xDBFF:
				if w, ok := hex4(b, i+8); ok && i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' && w >= 0xDC00 && w <= 0xDFFF {
					i += 11 // the pair
					continue
				}
				return i, true
			case v >= 0xDC00 && v <= 0xDFFF:
				return i, true
			}
			i += 5
		}
	}
	return 0, false
}

// hex4 reads four hex digits at b[at:].
func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var v rune
	for _, c := range b[at : at+4] {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			v |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			v |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return v, true
}

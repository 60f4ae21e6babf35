package jsoncheck

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLoneSurrogate against encoding/json: a text is flagged exactly when decoding it
// changes a string into one holding U+FFFD that the text did not spell.
func TestLoneSurrogate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		lone bool
		at   int
	}{
		{`{"text": "plain"}`, false, 0},
		{`{"text": "a \ud83d\ude00 smile"}`, false, 0},            // a pair
		{`{"text": "\ud800"}`, true, 10},                          // a lone high
		{`{"text": "x\udc00y"}`, true, 11},                        // a lone low
		{`{"text": "\ud800\u0041"}`, true, 10},                    // a high before a non-low
		{`{"text": "\\ud800"}`, false, 0},                         // an escaped backslash: no escape
		{`{"\ud800": 1}`, true, 2},                                // in a key
		{`{"text": "\u00e9t\u00e9 \ufffd"}`, false, 0},            // other escapes, U+FFFD itself
		{`{"a": "\"\ud800"}`, true, 9},                            // after an escaped quote
		{`{"a": "ok", "b": "\udfff\ud800"}`, true, 18},            // a low then a high
		{`{"a": "` + strings.Repeat("x", 3) + `\ud800`, true, 10}, // unterminated
	}
	for _, c := range cases {
		at, lone := LoneSurrogate([]byte(c.in))
		if lone != c.lone || (lone && at != c.at) {
			t.Errorf("%s: lone %v at %d, want %v at %d", c.in, lone, at, c.lone, c.at)
		}
		// The reference: encoding/json replaces a lone surrogate with U+FFFD.
		var v any
		if err := json.Unmarshal([]byte(c.in), &v); err == nil {
			b, _ := json.Marshal(v)
			damaged := strings.Contains(string(b), "\ufffd") && !strings.Contains(c.in, `\ufffd`)
			if damaged != c.lone {
				t.Errorf("%s: encoding/json damages it: %v, LoneSurrogate says %v", c.in, damaged, c.lone)
			}
		}
	}
}

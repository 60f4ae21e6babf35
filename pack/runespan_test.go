package pack

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRuneSpanByRunes: runeSpan cuts what slicing the text's runes cuts, on random texts of
// one- to four-byte characters and random bounds in and out of range.
func TestRuneSpanByRunes(t *testing.T) {
	pieces := []string{"a", "B", " ", ".", "é", "日", "本", "😀", "ß", "\n"}
	r := rand.New(rand.NewPCG(5, 8))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		rs := []rune(s)
		start, end := r.IntN(len(rs)+3)-1, r.IntN(len(rs)+3)-1
		want, wantOK := "", start >= 0 && end <= len(rs) && start < end
		if wantOK {
			want = string(rs[start:end])
		}
		if got, ok := runeSpan(s, start, end); got != want || ok != wantOK {
			t.Fatalf("runeSpan(%q, %d, %d) = %q, %v; want %q, %v", s, start, end, got, ok, want, wantOK)
		}
	}
}

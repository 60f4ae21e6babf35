package pack_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/recall-engine/recall/pack"
	"github.com/recall-engine/recall/statement"
)

// TestAnchorsFirst checks the anchor rule on a hand-made head: a memory only the context lane
// found moves to just after the first of its neighbours another lane found when all of them
// come later; it keeps its place when one comes earlier, when its neighbours were found by
// the context lane alone too, and when it has no place; memories waiting for one anchor keep
// their order.
func TestAnchorsFirst(t *testing.T) {
	t.Parallel()
	chat := &statement.Source{ID: 1}
	log := &statement.Source{ID: 2}
	mk := func(id int64, src *statement.Source, pos int, lanes ...statement.Lane) pack.Ranked {
		c := statement.Candidate{ID: id, ExternalID: string(rune('a' + id - 1)), Source: src, Position: pos}
		for _, l := range lanes {
			c.Lanes[l] = statement.LaneHit{Rank: int(id), Score: 1}
		}
		return pack.Ranked{Candidate: c}
	}
	ctx, bm := statement.Context, statement.BM25
	head := []pack.Ranked{
		mk(1, chat, 1, bm),              // a: an anchor, first
		mk(2, chat, 3, ctx),             // b: context only; neighbours c (context only) and d (bm25, later): after d
		mk(3, chat, 2, ctx),             // c: context only; neighbour a comes first: stays
		mk(4, chat, 4, bm, ctx),         // d: found by bm25 too
		mk(5, log, 2, ctx),              // e: context only; neighbours f (later) and g (later): after f
		mk(6, log, 5, ctx),              // f: context only, no neighbour among the head: stays
		mk(7, nil, 0, ctx),              // g: context only, no place: stays
		mk(8, log, 3, statement.Vector), // h: e's anchor (place 3)
		mk(9, log, 4, ctx),              // i: context only; neighbour h (place 3) is before it: stays
		mk(10, log, 1, bm),              // j: e's other anchor (place 1), after h
	}
	var got []string
	for _, c := range pack.AnchorsFirst(head) {
		got = append(got, c.ExternalID)
	}
	want := []string{"a", "c", "d", "b", "f", "g", "h", "e", "i", "j"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	// Nothing to move: the same slice back.
	plain := head[:1]
	if out := pack.AnchorsFirst(plain); len(out) != 1 || &out[0] != &plain[0] {
		t.Fatalf("a head with nothing to move was copied or changed: %v", out)
	}
	// Two memories waiting for one anchor keep their order after it.
	two := []pack.Ranked{mk(2, chat, 1, ctx), mk(3, chat, 3, ctx), mk(4, chat, 2, bm)}
	got = got[:0]
	for _, c := range pack.AnchorsFirst(two) {
		got = append(got, c.ExternalID)
	}
	if want := []string{"d", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("two waiting: %v, want %v", got, want)
	}
}

// TestReplacedAfterCurrent: a superseded memory follows its successor when the successor is
// among the candidates, wherever either ranked; a chain follows itself; one whose successor
// is absent, and every other memory, keeps its place; a cycle loses nothing.
func TestReplacedAfterCurrent(t *testing.T) {
	t.Parallel()
	mk := func(id, by string) pack.Ranked {
		return pack.Ranked{Candidate: statement.Candidate{ExternalID: id, ReplacedBy: by}}
	}
	ids := func(rs []pack.Ranked) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ExternalID)
		}
		return out
	}
	for _, c := range []struct {
		name string
		in   []pack.Ranked
		want []string
	}{
		{"old first", []pack.Ranked{mk("lisbon", "berlin"), mk("x", ""), mk("berlin", "")}, []string{"x", "berlin", "lisbon"}},
		{"old later", []pack.Ranked{mk("berlin", ""), mk("x", ""), mk("y", ""), mk("lisbon", "berlin")}, []string{"berlin", "lisbon", "x", "y"}},
		{"chain", []pack.Ranked{mk("m1", "m2"), mk("m3", ""), mk("x", ""), mk("m2", "m3")}, []string{"m3", "m2", "m1", "x"}},
		{"two replaced", []pack.Ranked{mk("b", "n"), mk("n", ""), mk("a", "n")}, []string{"n", "b", "a"}},
		{"successor absent", []pack.Ranked{mk("x", ""), mk("old", "gone"), mk("y", "")}, []string{"x", "old", "y"}},
		{"cycle", []pack.Ranked{mk("x", ""), mk("p", "q"), mk("q", "p")}, []string{"x", "p", "q"}},
	} {
		if got := ids(pack.ReplacedAfterCurrent(c.in)); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRestatements: a candidate that says what one above it said (same kind and speaker, the
// text equal but for case, spacing and punctuation) is no unit of its own and is named in the
// first one's AlsoSaid, in order; another speaker, another kind, or other words are kept; a
// text of punctuation alone restates nothing. TextKey matches recall.text_key's rule.
func TestRestatements(t *testing.T) {
	t.Parallel()
	mk := func(id int64, kind, speaker, text string) pack.Ranked {
		return pack.Ranked{Candidate: statement.Candidate{ID: id, ExternalID: string(rune('a' + id - 1)), Kind: kind, Speaker: speaker, Text: text}}
	}
	ordered := []pack.Ranked{
		mk(1, "world", "", "The crane was fixed on Monday."),      // a
		mk(2, "world", "", "the crane  was fixed on monday"),      // b: restates a
		mk(3, "experience", "", "The crane was fixed on Monday."), // c: another kind: kept
		mk(4, "world", "Ann", "The crane was fixed on Monday!"),   // d: another speaker: kept
		mk(5, "world", "", "The crane was fixed on Tuesday."),     // e: other words: kept
		mk(6, "world", "", "...!"),                                // f: no words
		mk(7, "world", "", "?"),                                   // g: no words: not f's restatement
		mk(8, "world", "Ann", "the crane was FIXED on monday"),    // h: restates d
		mk(9, "world", "", "The crane, was fixed on Monday"),      // i: restates a
	}
	units := pack.Units(ordered, 0)
	var got []string
	also := map[string][]string{}
	for _, u := range units {
		h := u.Members[u.Hit]
		got = append(got, h.ExternalID)
		for _, r := range h.AlsoSaid {
			also[h.ExternalID] = append(also[h.ExternalID], r.ExternalID)
		}
	}
	if want := []string{"a", "c", "d", "e", "f", "g"}; !slices.Equal(got, want) {
		t.Fatalf("units %v, want %v", got, want)
	}
	if len(also) != 2 || !slices.Equal(also["a"], []string{"b", "i"}) || !slices.Equal(also["d"], []string{"h"}) {
		t.Fatalf("also said %v, want a: [b i], d: [h]", also)
	}
	for in, want := range map[string]string{"  Hello,   World! ": "hello world", "Café—Olé 42": "café olé 42", "?!": "", "ÅB": "åb"} {
		if got := pack.TextKey(in); got != want {
			t.Errorf("TextKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCorroboratedFirst: a memory only the context lane found that ranks above the last
// memory without a place three lanes found moves to just after it, the moved keeping their
// order; one below it, one two lanes found, and every candidate when no placeless one has
// three lanes (a turn with three does not count) keep their places.
func TestCorroboratedFirst(t *testing.T) {
	t.Parallel()
	mk := func(id int64, lanes ...statement.Lane) pack.Ranked {
		c := statement.Candidate{ID: id, ExternalID: string(rune('a' + id - 1))}
		for _, l := range lanes {
			c.Lanes[l] = statement.LaneHit{Rank: 1, Score: 1}
		}
		return pack.Ranked{Candidate: c}
	}
	ctx, bm, vec, men := statement.Context, statement.BM25, statement.Vector, statement.Mention
	head := []pack.Ranked{
		mk(1, bm, vec, men), // a: three lanes
		mk(2, ctx),          // b: context only, above e: moves after e
		mk(3, ctx, bm),      // c: two lanes: stays
		mk(4, ctx),          // d: context only, above e: moves after b
		mk(5, ctx, bm, vec), // e: three lanes, the last
		mk(6, ctx),          // f: context only, below e: stays
		mk(7, bm),           // g
	}
	var got []string
	for _, c := range pack.CorroboratedFirst(head, 3) {
		got = append(got, c.ExternalID)
	}
	if want := []string{"a", "c", "e", "b", "d", "f", "g"}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	turn := mk(2, ctx, bm, vec)
	turn.Position = 4
	plain := []pack.Ranked{mk(1, ctx), mk(2, bm, vec), turn}
	if out := pack.CorroboratedFirst(plain, 3); &out[0] != &plain[0] {
		t.Fatalf("nothing three lanes found: the head was copied or changed")
	}
}

// TestTextKeyByRune: TextKey equals the rule written rune by rune with package unicode (a
// letter or digit lowered, every other run one space, trimmed) on random texts of ASCII,
// accented and other scripts' letters, digits, spaces and punctuation.
func TestTextKeyByRune(t *testing.T) {
	ref := func(text string) string {
		var words []string
		var w []rune
		for _, r := range text + " " {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				w = append(w, unicode.ToLower(r))
			} else if len(w) > 0 {
				words = append(words, string(w))
				w = nil
			}
		}
		return strings.Join(words, " ")
	}
	alphabet := []rune("aZqM09 \t\n.,!?'-_éÉÅßİıΣσ日本٣@[`{~\u00a0\u2003")
	r := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		rs := make([]rune, r.IntN(40))
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		if got, want := pack.TextKey(string(rs)), ref(string(rs)); got != want {
			t.Fatalf("TextKey(%q) = %q, want %q", string(rs), got, want)
		}
	}
}

package pack_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/pack"
	"github.com/recall-engine/recall/statement"
)

// words counts a token a word, so the table below reads in words.
var words = budget.CounterFunc(func(s string) int { return len(strings.Fields(s)) })

// long is a memory of n words, <word>0 to <word><n-1>, whose matched passage is words
// [from, to) (no passage when to is 0).
func long(id int64, word string, n, from, to int) pack.Ranked {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("%s%d", word, i)
	}
	text := strings.Join(ws, " ")
	c := statement.Candidate{ID: id, ExternalID: fmt.Sprintf("m%d", id), Text: text}
	if to > 0 {
		start := len([]rune(strings.Join(ws[:from], " ")))
		if from > 0 {
			start++ // the space before the passage's first word
		}
		c.Passage = &statement.Span{Start: start, End: start + len([]rune(strings.Join(ws[from:to], " ")))}
	}
	return pack.Ranked{Candidate: c, FusedRank: int(id)}
}

// TestPassageChoice: the pack's choice between a long memory and its matched passage, by
// mode and budget, against a hand table (tokens are words).
func TestPassageChoice(t *testing.T) {
	t.Parallel()
	type memory struct {
		n, from, to int
		word        string // its words' stem: memories of one stem say the same
	}
	type item struct {
		id        int64
		words     int  // tokens as packed
		passage   bool // the passage, not the whole memory
		truncated bool
	}
	cases := []struct {
		name   string
		mode   pack.Passages
		budget int
		mems   []memory
		want   []item
	}{
		{"auto: a passage of a quarter of the memory", pack.PassagesAuto, 1000, []memory{{200, 100, 150, "a"}}, []item{{1, 50, true, false}}},
		{"auto: exactly half is not more than twice", pack.PassagesAuto, 1000, []memory{{120, 0, 60, "a"}}, []item{{1, 120, false, false}}},
		{"auto: two thirds of it: whole", pack.PassagesAuto, 1000, []memory{{90, 30, 90, "a"}}, []item{{1, 90, false, false}}},
		{"auto: the whole does not fit, the passage does", pack.PassagesAuto, 70, []memory{{90, 30, 90, "a"}}, []item{{1, 60, true, false}}},
		{"auto: neither fits: the passage, cut", pack.PassagesAuto, 40, []memory{{90, 30, 90, "a"}}, []item{{1, 40, true, true}}},
		{"auto: no passage: whole", pack.PassagesAuto, 1000, []memory{{200, 0, 0, "a"}}, []item{{1, 200, false, false}}},
		{"the zero mode is auto", "", 1000, []memory{{200, 100, 150, "a"}}, []item{{1, 50, true, false}}},
		{"whole: always whole", pack.PassagesWhole, 1000, []memory{{200, 100, 150, "a"}}, []item{{1, 200, false, false}}},
		{"whole: cut, not the passage", pack.PassagesWhole, 70, []memory{{90, 30, 90, "a"}}, []item{{1, 70, false, true}}},
		{"passage: even when it saves little", pack.PassagesPassage, 1000, []memory{{90, 30, 90, "a"}}, []item{{1, 60, true, false}}},
		// The second memory fits only in its passage after the first: auto packs both.
		{"auto: the second fits as its passage", pack.PassagesAuto, 150, []memory{{100, 0, 90, "a"}, {100, 10, 50, "b"}},
			[]item{{1, 100, false, false}, {2, 40, true, false}}},
		{"whole: the second is left out", pack.PassagesWhole, 150, []memory{{100, 0, 90, "a"}, {100, 10, 50, "b"}},
			[]item{{1, 100, false, false}}},
		// A memory that says the same as one above is found by its whole words, not by its
		// passage's: named in the first's also_said, not packed.
		{"auto: a restatement is not packed", pack.PassagesAuto, 1000, []memory{{200, 100, 150, "a"}, {200, 100, 150, "a"}},
			[]item{{1, 50, true, false}}},
		{"auto: the same passage in different memories is packed twice", pack.PassagesAuto, 1000,
			[]memory{{200, 0, 50, "a"}, {120, 0, 50, "a"}}, []item{{1, 50, true, false}, {2, 50, true, false}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ordered []pack.Ranked
			for i, m := range tc.mems {
				ordered = append(ordered, long(int64(i+1), m.word, m.n, m.from, m.to))
			}
			p := &pack.Pack{}
			pack.Fill(p, pack.Input{Ordered: ordered, Budget: tc.budget, Passages: tc.mode, Tokens: words})
			var got []item
			for _, it := range p.Items {
				got = append(got, item{it.ID, words.Count(it.Text), it.Passage != nil, it.Truncated})
				whole := ordered[it.ID-1].Text
				text := strings.TrimSuffix(it.Text, "…") // budget.Trim marks a cut text so
				if it.Passage != nil {
					rs := []rune(whole)
					if want := string(rs[it.Passage.Start:it.Passage.End]); !strings.HasPrefix(want, text) {
						t.Fatalf("item %d: text %q is not its passage %q", it.ID, it.Text, want)
					}
				} else if !strings.HasPrefix(whole, text) {
					t.Fatalf("item %d: text is neither the memory nor its start", it.ID)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("packed %v, want %v", got, tc.want)
			}
		})
	}
}

package when

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestParseNeeds: Parse, which tries a rule only when the question holds one of the rule's
// need, reads what trying every rule reads, on random texts of time words, numbers, months
// and filler, in which every rule matches many times (so a need that a match can lack would
// show).
func TestParseNeeds(t *testing.T) {
	t.Parallel()
	words := strings.Fields("I we went to the a an of in on at by since during early late mid year " +
		"yesterday today Yesterday TODAY weekend weekends last this next past day days week weeks " +
		"month months year years ago Ago couple few several one two three twelve 3 12 07 31 2023 " +
		"1999 2023-07-07 2023-02-30 3rd 21st 1st th May may March mar. Sept. sept sep December dec " +
		"June jun July jul. market decided mayor ,")
	rng := rand.New(rand.NewPCG(7, 11))
	now := time.Date(2023, 11, 15, 14, 30, 0, 0, time.UTC)
	matched := make([]int, len(rules))
	found := 0
	for range 60000 {
		n := 2 + rng.IntN(9)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[rng.IntN(len(words))]
		}
		q := strings.Join(ws, " ")
		lq := strings.ToLower(q)
		for i, r := range rules {
			if r.re.MatchString(lq) {
				matched[i]++
			}
		}
		got, ok := Parse(q, now)
		want, wantOK := parse(q, now, false)
		if ok != wantOK || !got.Start.Equal(want.Start) || !got.End.Equal(want.End) || got.Text != want.Text {
			t.Fatalf("%q: %v %+v, every rule tried: %v %+v", q, ok, got, wantOK, want)
		}
		if ok {
			found++
		}
	}
	for i, n := range matched {
		if n < 50 {
			t.Errorf("rule %d (%s) matched %d random texts: the test does not exercise its need", i, rules[i].re, n)
		}
	}
	if found < 10000 || found > 55000 {
		t.Errorf("a time found in %d of 60,000 texts: want some texts with one and some without", found)
	}
}

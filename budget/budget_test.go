package budget_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recall-engine/recall/budget"
)

// words counts one token per space-separated word, which makes the cases easy to read.
var words = budget.CounterFunc(func(s string) int { return len(strings.Fields(s)) })

// cost and cut walk texts counted in words.
var cost, cut = budget.Texts(words)

func TestWalk(t *testing.T) {
	t.Parallel()
	w := func(n int) string { return strings.TrimSpace(strings.Repeat("w ", n)) }
	for _, tc := range []struct {
		name      string
		texts     []string
		budget    int
		packed    []int
		omitted   []int
		used      int
		omitTok   int
		truncated bool
		empty     budget.Reason
	}{
		{"all fit", []string{w(3), w(4), w(2)}, 10, []int{0, 1, 2}, nil, 9, 0, false, ""},
		{"exact fit", []string{w(5), w(5)}, 10, []int{0, 1}, nil, 10, 0, false, ""},
		{"skip and continue", []string{w(3), w(8), w(4), w(3)}, 10, []int{0, 2, 3}, []int{1}, 10, 8, false, ""},
		{"later items still fill", []string{w(6), w(6), w(1), w(5), w(3)}, 10, []int{0, 2, 4}, []int{1, 3}, 10, 11, false, ""},
		{"nothing fits: top truncated", []string{w(20), w(30)}, 5, []int{0}, []int{1}, 5, 30, true, ""},
		{"zero candidates", nil, 10, nil, nil, 0, 0, false, budget.ReasonNoCandidates},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := budget.Walk(tc.texts, cost, cut, tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			var packed, omitted []int
			trunc := false
			for _, it := range p.Items {
				packed = append(packed, it.Index)
				trunc = trunc || it.Truncated
				if it.Tokens != words.Count(it.Item) {
					t.Fatalf("item %d: Tokens %d for a text of %d", it.Index, it.Tokens, words.Count(it.Item))
				}
			}
			for _, o := range p.Omitted {
				omitted = append(omitted, o.Index)
				if o.Reason != budget.ReasonOverBudget {
					t.Fatalf("omitted %d: reason %q", o.Index, o.Reason)
				}
			}
			if !slices.Equal(packed, tc.packed) || !slices.Equal(omitted, tc.omitted) {
				t.Fatalf("packed %v omitted %v, want %v and %v", packed, omitted, tc.packed, tc.omitted)
			}
			if p.Used != tc.used || p.OmittedTokens != tc.omitTok || trunc != tc.truncated || p.Empty != tc.empty {
				t.Fatalf("used %d omittedTokens %d truncated %v empty %q, want %d %d %v %q",
					p.Used, p.OmittedTokens, trunc, p.Empty, tc.used, tc.omitTok, tc.truncated, tc.empty)
			}
			if p.Used > tc.budget {
				t.Fatalf("used %d of %d", p.Used, tc.budget)
			}
		})
	}
	if _, err := budget.Walk([]string{"a"}, cost, cut, 0); err == nil {
		t.Fatal("budget 0 accepted")
	}
}

func TestTrim(t *testing.T) {
	t.Parallel()
	c := budget.Bytes4{}
	text := "Aspirin lowers the risk of heart attacks in older adults, says the trial."
	for b := 1; b <= c.Count(text); b++ {
		got := budget.Trim(text, b, c)
		if c.Count(got) > b {
			t.Fatalf("budget %d: %q costs %d", b, got, c.Count(got))
		}
		if !utf8.ValidString(got) {
			t.Fatalf("budget %d: invalid UTF-8 %q", b, got)
		}
		base := strings.TrimSuffix(got, "…")
		if !strings.HasPrefix(text, base) {
			t.Fatalf("budget %d: %q is not a prefix", b, got)
		}
	}
	if got := budget.Trim(text, 100, c); got != text {
		t.Fatalf("a fitting text was trimmed: %q", got)
	}
	// 10 tokens = 40 bytes: cut at the last space before byte 40 (within the last quarter).
	if got := budget.Trim(text, 10, c); got != "Aspirin lowers the risk of heart…" {
		t.Fatalf("got %q", got)
	}
	// Multi-byte runes are never split.
	greek := strings.Repeat("αβγδ", 20)
	for b := 1; b < 40; b++ {
		if got := budget.Trim(greek, b, c); !utf8.ValidString(got) || c.Count(got) > b {
			t.Fatalf("budget %d: %q", b, got)
		}
	}
}

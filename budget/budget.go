// Package budget counts tokens and packs ranked items into a token budget. It is pure: no
// database, no model; the token counter is injected.
package budget

import (
	"fmt"
	"sort"
	"unicode"
	"unicode/utf8"
)

// TokenCounter counts the tokens a text costs in the caller's context window.
// Implementations are safe for concurrent use.
type TokenCounter interface {
	Count(text string) int
}

// Bytes4 is the default counter: one token per four bytes, rounded up, the usual estimate
// for English text under BPE tokenizers.
type Bytes4 struct{}

// Count implements TokenCounter.
func (Bytes4) Count(text string) int { return (len(text) + 3) / 4 }

// CounterFunc adapts a function (for example a model tokenizer's) to TokenCounter.
type CounterFunc func(string) int

// Count implements TokenCounter.
func (f CounterFunc) Count(text string) int { return f(text) }

// Reason says why an item was left out of a pack.
type Reason string

// Reasons.
const (
	// ReasonOverBudget: the item did not fit in what was left of the budget.
	ReasonOverBudget Reason = "over_budget"
	// ReasonNoCandidates: the pack is empty because nothing matched.
	ReasonNoCandidates Reason = "no_candidates"
)

// Packed is one item that made it into the pack.
type Packed[T any] struct {
	Item      T   // as packed (cut when Truncated)
	Index     int // its place in the walked items
	Tokens    int
	Truncated bool // the top item was cut to fit a budget nothing else fitted
}

// Omitted is one item left out.
type Omitted[T any] struct {
	Item   T
	Index  int
	Tokens int // what it would have cost
	Reason Reason
}

// Pack is the result of a walk.
type Pack[T any] struct {
	Items         []Packed[T]
	Omitted       []Omitted[T]
	Used          int    // tokens of the packed items
	OmittedTokens int    // tokens of the omitted items
	Empty         Reason // why Items is empty ("" when it is not)
}

// Walk packs items, already in merit order, into budget tokens, each costing cost(item): it
// takes each item that fits in what is left and skips (and reports) each one that does not,
// then keeps going, so a long item never blocks shorter ones below it. When nothing fits,
// the top item is cut to the budget by cut(item, budget), which returns it and its cost,
// and marked Truncated: a pack is never empty when something matched. A budget below 1 is
// the caller's error.
func Walk[T any](items []T, cost func(T) int, cut func(T, int) (T, int), budget int) (Pack[T], error) {
	return WalkSmaller(items, cost, cut, nil, budget)
}

// WalkSmaller is Walk where an item that does not fit in what is left may be taken in a
// smaller form: smaller(item) returns it (and true) when it has one, which is packed in its
// place if it fits (an omitted item is reported as it was); the cut, when nothing fits, is
// of the top item's smaller form. A nil smaller is Walk.
func WalkSmaller[T any](items []T, cost func(T) int, cut func(T, int) (T, int), smaller func(T) (T, bool), budget int) (Pack[T], error) {
	if budget < 1 {
		return Pack[T]{}, fmt.Errorf("budget: %d tokens, want at least 1", budget)
	}
	var p Pack[T]
	if len(items) == 0 {
		p.Empty = ReasonNoCandidates
		return p, nil
	}
	left := budget
	for i, it := range items {
		n := cost(it)
		if n > left && smaller != nil {
			if s, ok := smaller(it); ok {
				if m := cost(s); m <= left {
					it, n = s, m
				}
			}
		}
		if n <= left {
			p.Items = append(p.Items, Packed[T]{Item: it, Index: i, Tokens: n})
			p.Used += n
			left -= n
			continue
		}
		p.Omitted = append(p.Omitted, Omitted[T]{Item: it, Index: i, Tokens: n, Reason: ReasonOverBudget})
		p.OmittedTokens += n
	}
	if len(p.Items) == 0 {
		first := items[0]
		if smaller != nil {
			if s, ok := smaller(first); ok {
				first = s
			}
		}
		top, n := cut(first, budget)
		p.Items = []Packed[T]{{Item: top, Index: 0, Tokens: n, Truncated: true}}
		p.Used = n
		p.OmittedTokens -= p.Omitted[0].Tokens
		p.Omitted = p.Omitted[1:]
	}
	return p, nil
}

// Texts returns Walk's cost and cut for items that are texts, counted by c (nil: Bytes4).
func Texts(c TokenCounter) (cost func(string) int, cut func(string, int) (string, int)) {
	if c == nil {
		c = Bytes4{}
	}
	return c.Count, func(s string, budget int) (string, int) {
		t := Trim(s, budget, c)
		return t, c.Count(t)
	}
}

// Trim returns the longest prefix of text that costs at most budget tokens, cut at a word
// boundary when one exists in the last quarter of the kept prefix, with "…" appended when
// something was cut and the mark still fits. Counters need not be linear: it searches.
func Trim(text string, budget int, c TokenCounter) string {
	if c.Count(text) <= budget {
		return text
	}
	const mark = "…"
	fits := func(s string) bool { return c.Count(s) <= budget }
	// The longest prefix, ending on a rune boundary, that fits: binary search over the
	// boundaries (prefix costs never fall as the prefix grows).
	bounds := make([]int, 0, len(text)+1)
	for i := range text {
		bounds = append(bounds, i)
	}
	bounds = append(bounds, len(text))
	k := sort.Search(len(bounds), func(k int) bool { return !fits(text[:bounds[k]]) }) - 1
	lo := bounds[max(k, 0)]
	cut := text[:lo]
	// Prefer ending at a word boundary.
	for i := len(cut) - 1; i > len(cut)*3/4; i-- {
		r, _ := utf8.DecodeLastRuneInString(cut[:i+1])
		if unicode.IsSpace(r) {
			cut = cut[:i]
			break
		}
	}
	for len(cut) > 0 && !fits(cut+mark) {
		_, size := utf8.DecodeLastRuneInString(cut)
		cut = cut[:len(cut)-size]
	}
	if cut == "" {
		return text[:lo]
	}
	return cut + mark
}

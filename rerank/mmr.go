package rerank

import (
	"strings"
	"unicode"
)

// MMR reorders items (already in merit order) by maximal marginal relevance: each next pick
// maximizes lambda*rel - (1-lambda)*maxsim, where rel falls linearly from 1 at the top of
// the merit order to 0 at the end and maxsim is the word-set Jaccard similarity of
// text(item) to the texts already picked. lambda = 1 keeps the order; lower values push
// near-duplicates down. Ties keep merit order.
func MMR[T any](items []T, text func(T) string, lambda float64) []T {
	n := len(items)
	out := make([]T, 0, n)
	if n == 0 {
		return out
	}
	sets := make([]map[string]struct{}, n)
	for i, it := range items {
		sets[i] = wordSet(text(it))
	}
	picked := make([]bool, n)
	maxSim := make([]float64, n)
	for len(out) < n {
		best, bestV := -1, 0.0
		for i := range n {
			if picked[i] {
				continue
			}
			rel := 1.0
			if n > 1 {
				rel = 1 - float64(i)/float64(n-1)
			}
			v := lambda*rel - (1-lambda)*maxSim[i]
			if best < 0 || v > bestV {
				best, bestV = i, v
			}
		}
		picked[best] = true
		out = append(out, items[best])
		for i := range n {
			if !picked[i] {
				maxSim[i] = max(maxSim[i], jaccard(sets[i], sets[best]))
			}
		}
	}
	return out
}

func wordSet(s string) map[string]struct{} {
	out := map[string]struct{}{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		out[w] = struct{}{}
	}
	return out
}

func jaccard(a, b map[string]struct{}) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for w := range a {
		if _, ok := b[w]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

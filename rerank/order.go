package rerank

import (
	"cmp"
	"slices"
)

// Order returns items, candidates in statement order, in merit order:
//  1. direct sources (direct(item): the query names their source), reranked ones first by
//     score, the others in statement order;
//  2. the rest of the reranked head (the first len(scores) items) by score, highest first,
//     ties in statement order;
//  3. the rest in statement order.
//
// scores may be nil (no reranking); direct may be nil (no direct sources).
func Order[T any](items []T, scores []float32, direct func(T) bool) []T {
	n := len(items)
	isDirect := func(i int) bool { return direct != nil && direct(items[i]) }
	head := min(len(scores), n)
	var first, mid, rest []int
	for i := range n {
		switch {
		case isDirect(i):
			first = append(first, i)
		case i < head:
			mid = append(mid, i)
		default:
			rest = append(rest, i)
		}
	}
	byScore := func(a, b int) int {
		ra, rb := a < head, b < head
		switch {
		case ra && rb:
			if c := cmp.Compare(scores[b], scores[a]); c != 0 {
				return c
			}
		case ra != rb: // reranked before not reranked
			if ra {
				return -1
			}
			return 1
		}
		return cmp.Compare(a, b)
	}
	slices.SortStableFunc(first, byScore)
	slices.SortStableFunc(mid, byScore)
	out := make([]T, 0, n)
	for _, part := range [][]int{first, mid, rest} {
		for _, i := range part {
			out = append(out, items[i])
		}
	}
	return out
}

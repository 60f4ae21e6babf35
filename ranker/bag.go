package ranker

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// FitBagged fits bags orders and returns their average: each is Fit, then FitTrees on top of
// it, on a bootstrap sample of the queries (as many as there are, drawn with replacement by
// a seed of its own, so the result is deterministic). The average of linear orders is the
// linear order of the averaged weights, and the average of their trees is every bag's trees
// with their values divided by bags, so the result is a Model like any other (New, then
// WithTrees). Averaging lowers the variance a single fit has from the queries it happens to
// be given. bags <= 1 is one plain fit on every query.
func FitBagged(queries []Query, o FitOptions, bags int) (map[string]float64, []Tree, error) {
	if o.Kinds {
		if bags > 1 {
			return nil, nil, fmt.Errorf("ranker: a fit of kinds apart is not bagged")
		}
		return FitKinds(queries, o)
	}
	if bags <= 1 {
		w := Fit(queries, o)
		base, err := New("bag", "", w)
		if err != nil {
			return nil, nil, err
		}
		return w, FitTrees(queries, base, o.Trees), nil
	}
	weights := map[string]float64{}
	var trees []Tree
	for b := range bags {
		r := rand.New(rand.NewPCG(uint64(b), 0x5eed))
		sample := make([]Query, len(queries))
		for i := range sample {
			sample[i] = queries[r.IntN(len(queries))]
		}
		w := Fit(sample, o)
		for f, v := range w {
			weights[f] += v / float64(bags)
		}
		base, err := New("bag", "", w)
		if err != nil {
			return nil, nil, err
		}
		for _, t := range FitTrees(sample, base, o.Trees) {
			t.Nodes = slices.Clone(t.Nodes)
			for i := range t.Nodes {
				t.Nodes[i].Value /= float64(bags)
			}
			trees = append(trees, t)
		}
	}
	return weights, trees, nil
}

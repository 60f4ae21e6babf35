package ranker

import (
	"maps"
	"slices"
	"strings"
)

// FitKinds fits the two blocks of Features apart, each as Fit and FitTrees do:
//
//   - the turns' block on every query, with a document's values moved into that block, so
//     that what every kind of memory teaches (how much each lane's rank says, how a text's
//     share of the question's words counts) reaches the turns too;
//   - the documents' block ("doc_") on the queries that have a memory without a place, as
//     they are: only documents teach it, so what is learned on conversations (the turn after
//     a matching one, the opener) never moves a document, and a fit without any document
//     leaves documents the prior's order.
//
// Its trees split on one block each. The two are one Model.
func FitKinds(queries []Query, o FitOptions) (map[string]float64, []Tree, error) {
	folded := make([]Query, len(queries))
	var docs []Query
	for i, q := range queries {
		folded[i] = Query{X: make([][]float64, len(q.X)), Rel: q.Rel, Weight: q.Weight}
		hasDoc := false
		for j, x := range q.X {
			f := make([]float64, NumFeatures)
			for k := range numBase {
				f[k] = x[k] + x[numBase+k]
				hasDoc = hasDoc || x[numBase+k] != 0
			}
			folded[i].X[j] = f
		}
		if hasDoc {
			docs = append(docs, q)
		}
	}
	weights := map[string]float64{}
	var trees []Tree
	for _, part := range []struct {
		queries []Query
		doc     bool
	}{{folded, false}, {docs, true}} {
		if len(part.queries) == 0 {
			continue
		}
		w := onBlock(Fit(part.queries, o), part.doc)
		maps.Copy(weights, w)
		base, err := New("kind", "", w)
		if err != nil {
			return nil, nil, err
		}
		to := o.Trees
		to.Only = blockOf(o.Trees.Only, part.doc)
		trees = append(trees, FitTrees(part.queries, base, to)...)
	}
	return weights, trees, nil
}

// onBlock keeps the weights of one block.
func onBlock(w map[string]float64, doc bool) map[string]float64 {
	out := map[string]float64{}
	for f, v := range w {
		if strings.HasPrefix(f, docPrefix) == doc {
			out[f] = v
		}
	}
	return out
}

// blockOf names the features of one block a split may read: only's (base names) in it, or
// the whole block.
func blockOf(only []string, doc bool) []string {
	if only == nil {
		only = baseFeatures
	}
	out := slices.Clone(only)
	if doc {
		for i, f := range out {
			out[i] = docPrefix + f
		}
	}
	return out
}

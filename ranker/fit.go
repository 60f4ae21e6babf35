package ranker

import (
	"math"
)

// Query is one judged question's candidates for fitting: each candidate's features (Extract)
// and whether it is relevant.
type Query struct {
	X   [][]float64
	Rel []bool
	// Weight scales what the query's pairs count in Fit and FitTrees (0: 1): aizk-eval
	// order --balance gives each data set's queries together the same weight, whatever
	// the set's size.
	Weight float64
}

// weight is q.Weight, 1 when unset.
func (q Query) weight() float64 {
	if q.Weight == 0 {
		return 1
	}
	return q.Weight
}

// FitOptions shape Fit. The zero value takes the defaults.
type FitOptions struct {
	L2         float64     // weight of the L2 penalty on the standardized weights (0: 0.01)
	Iterations int         // gradient steps (0: 300)
	Rate       float64     // step size (0: 0.5)
	Trees      TreeOptions // boosted trees on top of the linear fit (FitTrees; zero: none)
	// Prior are weights by feature name the fit starts from and is drawn back to: the L2
	// penalty is on the distance from them, so a pattern the data does not support leaves
	// the prior's order (the fused order's lane weights: aizk-eval order --prior fused).
	// Nil: from zero.
	Prior map[string]float64
	// Kinds fits the turns' and the documents' blocks of Features apart (FitKinds).
	Kinds bool
}

// Fit fits a linear order to the queries by pairwise logistic regression (RankNet's loss with
// a linear scorer): for every query, every pair of a relevant and an irrelevant candidate,
// the loss is log(1 + exp(-(w.x_rel - w.x_irr))), averaged over the pairs (each weighted
// by its query's Weight), plus L2 times |w|^2 / 2 over weights on standardized features
// (each feature's mean and standard deviation over all candidates, as they are: a query's
// Weight weighs its pairs, not the scale), or on their distance from o.Prior. Full-batch gradient
// descent from zero (or the prior): deterministic. It returns the weights by feature name, on
// the features' own scale. A query without a relevant or an irrelevant candidate adds no
// pair.
func Fit(queries []Query, o FitOptions) map[string]float64 {
	if o.L2 == 0 {
		o.L2 = 0.01
	}
	if o.Iterations == 0 {
		o.Iterations = 300
	}
	if o.Rate == 0 {
		o.Rate = 0.5
	}
	n := NumFeatures
	mu, sd := make([]float64, n), make([]float64, n)
	count := 0
	for _, q := range queries {
		for _, x := range q.X {
			for j := range n {
				mu[j] += x[j]
			}
			count++
		}
	}
	for j := range n {
		mu[j] /= float64(max(count, 1))
	}
	for _, q := range queries {
		for _, x := range q.X {
			for j := range n {
				d := x[j] - mu[j]
				sd[j] += d * d
			}
		}
	}
	for j := range n {
		sd[j] = math.Sqrt(sd[j] / float64(max(count, 1)))
		if sd[j] == 0 {
			sd[j] = 1 // a constant feature: its weight stays 0
		}
	}
	// Each pair's standardized difference, relevant minus irrelevant.
	var pairs [][]float64
	var pw []float64 // each pair's weight
	total := 0.0
	for _, q := range queries {
		for a := range q.X {
			if !q.Rel[a] {
				continue
			}
			for b := range q.X {
				if q.Rel[b] {
					continue
				}
				d := make([]float64, n)
				for j := range n {
					d[j] = (q.X[a][j] - q.X[b][j]) / sd[j]
				}
				pairs = append(pairs, d)
				pw = append(pw, q.weight())
				total += q.weight()
			}
		}
	}
	// The prior on the standardized scale: w = prior + the fitted difference, penalized.
	prior := make([]float64, n)
	for f, v := range o.Prior {
		if j, ok := index[f]; ok {
			prior[j] = v * sd[j]
		}
	}
	w := make([]float64, n)
	if len(pairs) > 0 {
		for range o.Iterations {
			g := make([]float64, n)
			for p, d := range pairs {
				z := 0.0
				for j := range n {
					z += (prior[j] + w[j]) * d[j]
				}
				s := pw[p] / (1 + math.Exp(z)) // -d/dz log(1 + e^-z), weighted
				for j := range n {
					g[j] -= s * d[j]
				}
			}
			for j := range n {
				w[j] -= o.Rate * (g[j]/total + o.L2*w[j])
			}
		}
	}
	out := map[string]float64{}
	for j, f := range Features {
		if v := (prior[j] + w[j]) / sd[j]; v != 0 {
			out[f] = v
		}
	}
	return out
}

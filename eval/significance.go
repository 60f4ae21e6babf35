package eval

import (
	"math"
	"math/rand/v2"
	"sort"
)

// PairedRandomization is the two-sided paired randomization (permutation) test of the mean
// difference between a and b, measured on the same queries: under the null hypothesis the
// sign of each query's difference is a coin flip. It returns (count+1)/(trials+1), where
// count is how many of trials random sign assignments give a mean difference at least as
// large in magnitude as the observed one. Deterministic for a seed.
func PairedRandomization(a, b []float64, trials int, seed uint64) float64 {
	if len(a) != len(b) {
		panic("eval: paired samples of different lengths")
	}
	n := len(a)
	if n == 0 || trials <= 0 {
		return 1
	}
	d := make([]float64, n)
	var obs float64
	for i := range a {
		d[i] = a[i] - b[i]
		obs += d[i]
	}
	obs = math.Abs(obs)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	count := 0
	const eps = 1e-12
	for range trials {
		var s float64
		for _, x := range d {
			if r.Uint64()&1 == 1 {
				s += x
			} else {
				s -= x
			}
		}
		if math.Abs(s) >= obs-eps {
			count++
		}
	}
	return float64(count+1) / float64(trials+1)
}

// Holm adjusts p-values for multiple comparisons (Holm-Bonferroni step-down): the i-th
// smallest of m p-values is multiplied by m-i, then made non-decreasing in that order and
// capped at 1. It returns the adjusted values in the input order.
func Holm(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool { return p[idx[x]] < p[idx[y]] })
	out := make([]float64, m)
	run := 0.0
	for rank, i := range idx {
		v := math.Min(1, p[i]*float64(m-rank))
		run = math.Max(run, v)
		out[i] = run
	}
	return out
}

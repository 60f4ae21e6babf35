package ranker

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Tree is one regression tree of a boosted order: Nodes[0] is the root; an internal node
// sends a candidate whose feature value is at most Threshold to Left, else to Right; a leaf
// (Feature "") adds its Value to the score. A tree whose splits read one block of Features
// scores only the candidates of that kind (a turn's trees never score a document, whose turn
// block is zero: a path it was never fitted on). Every node keeps the Value its candidates would
// get if it were a leaf, so a score is explained feature by feature along the path
// (Contributions).
type Tree struct {
	Nodes []Node `json:"nodes"`

	kind kind // the candidates it scores: those of its splits' block (ranker.FitKinds), or all
}

// kind is a candidate's block of Features, or a tree's: a turn's, a document's, or (a tree
// that splits on both, or on none) any.
type kind int8

const (
	anyKind kind = iota
	turnKind
	docKind
)

// kindOf is x's block: a document's when its turn block is all zero (a candidate some lane
// found has a lane feature there otherwise).
func kindOf(x []float64) kind {
	for _, v := range x[:numBase] {
		if v != 0 {
			return turnKind
		}
	}
	return docKind
}

// scores says whether t adds to the score of a candidate of kind k.
func (t *Tree) scores(k kind) bool { return t.kind == anyKind || t.kind == k }

// Node is one node of a Tree.
type Node struct {
	Feature   string  `json:"feature,omitempty"`
	Threshold float64 `json:"threshold,omitempty"`
	Left      int     `json:"left,omitempty"`
	Right     int     `json:"right,omitempty"`
	Value     float64 `json:"value"`

	f int // Feature's index; -1 at a leaf
}

// check resolves feature names and checks the tree's shape: children after their parent,
// inside the tree, finite numbers.
func (t *Tree) check() error {
	if len(t.Nodes) == 0 {
		return fmt.Errorf("%w: a tree without nodes", ErrModel)
	}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if math.IsNaN(n.Value) || math.IsInf(n.Value, 0) || math.IsNaN(n.Threshold) || math.IsInf(n.Threshold, 0) {
			return fmt.Errorf("%w: node %d: value %v, threshold %v: want finite numbers", ErrModel, i, n.Value, n.Threshold)
		}
		if n.Feature == "" {
			n.f = -1
			continue
		}
		f, ok := index[n.Feature]
		if !ok {
			return fmt.Errorf("%w: node %d: unknown feature %q", ErrModel, i, n.Feature)
		}
		if n.Left <= i || n.Right <= i || n.Left >= len(t.Nodes) || n.Right >= len(t.Nodes) {
			return fmt.Errorf("%w: node %d: children %d and %d: want nodes after it in the tree", ErrModel, i, n.Left, n.Right)
		}
		n.f = f
	}
	turns, docs := 0, 0
	for _, n := range t.Nodes {
		switch {
		case n.f >= numBase:
			docs++
		case n.f >= 0:
			turns++
		}
	}
	switch {
	case turns > 0 && docs == 0:
		t.kind = turnKind
	case docs > 0 && turns == 0:
		t.kind = docKind
	default:
		t.kind = anyKind
	}
	return nil
}

// eval returns the tree's value of x, and when parts is not nil adds to each feature what its
// splits changed along x's path (child's Value minus parent's).
func (t *Tree) eval(x []float64, parts []float64) float64 {
	i := 0
	for {
		n := &t.Nodes[i]
		if n.f < 0 {
			return n.Value
		}
		next := n.Right
		if x[n.f] <= n.Threshold {
			next = n.Left
		}
		if parts != nil {
			parts[n.f] += t.Nodes[next].Value - n.Value
		}
		i = next
	}
}

// TreeOptions shape FitTrees. The zero value fits no tree.
type TreeOptions struct {
	Trees   int     // boosting rounds (0: none)
	Depth   int     // levels of splits per tree (0: 3)
	Shrink  float64 // learning rate (0: 0.1)
	MinHess float64 // least hessian in a leaf (0: 1)
	Lambda  float64 // L2 on leaf values (0: 1)
	Bins    int     // candidate thresholds per feature, at quantiles (0: 32)
	Cutoff  int     // the depth the lambdas weigh: a swap within it counts (0: 10)
	// Only names the features a split may read (nil: every one). PlaceFeatures keeps the
	// trees to what a memory's place in a conversation says, so a memory without one (a
	// note, a document) is ordered by the weights alone.
	Only []string
}

// PlaceFeatures are the features that read a memory's place and speaker: 0 for a memory
// without either, whatever its text.
var PlaceFeatures = []string{"speaker_named", "other_named", "nb_best", "nb_question", "same_best", "echo_prev", "echoed_next", "longer_prev", "longer_next", "opener", "self_talk", "self_talk_you"}

// FitTrees fits regression trees on top of a linear model's scores by LambdaMART: each round
// computes, for every query's pair of a relevant and an irrelevant candidate, RankNet's
// gradient weighted by how much swapping them would change nDCG at the cutoff, and fits one
// tree to those gradients with Newton leaf values (split gain on gradient and hessian sums,
// as in XGBoost). Deterministic.
func FitTrees(queries []Query, base *Model, o TreeOptions) []Tree {
	if o.Trees <= 0 {
		return nil
	}
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	if o.Depth == 0 {
		o.Depth = 3
	}
	if o.Bins == 0 {
		o.Bins = 32
	}
	if o.Cutoff == 0 {
		o.Cutoff = 10
	}
	def(&o.Shrink, 0.1)
	def(&o.MinHess, 1)
	def(&o.Lambda, 1)
	var rows [][]float64
	var rel []bool
	var starts []int
	var weight []float64 // each query's
	for _, q := range queries {
		starts = append(starts, len(rows))
		weight = append(weight, q.weight())
		rows = append(rows, q.X...)
		rel = append(rel, q.Rel...)
	}
	starts = append(starts, len(rows))
	score := make([]float64, len(rows))
	for i, x := range rows {
		if base != nil {
			score[i] = base.Score(x)
		}
	}
	cuts := thresholds(rows, o.Bins)
	bins := binRows(rows, cuts)
	g, h := make([]float64, len(rows)), make([]float64, len(rows))
	var trees []Tree
	for range o.Trees {
		clear(g)
		clear(h)
		for q := range len(starts) - 1 {
			lambdas(score[starts[q]:starts[q+1]], rel[starts[q]:starts[q+1]], o.Cutoff, weight[q], g[starts[q]:starts[q+1]], h[starts[q]:starts[q+1]])
		}
		t := growTree(bins, cuts, g, h, o)
		for i, x := range rows {
			score[i] += t.eval(x, nil)
		}
		trees = append(trees, t)
	}
	return trees
}

// lambdas adds one query's LambdaMART gradients (g: the direction to raise a score) and
// hessians. A pair counts by |delta nDCG@cutoff| of swapping its two candidates, times the
// query's weight.
func lambdas(score []float64, rel []bool, cutoff int, weight float64, g, h []float64) {
	n := len(score)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return score[order[a]] > score[order[b]] })
	pos := make([]int, n)
	for p, i := range order {
		pos[i] = p
	}
	nrel := 0
	for _, r := range rel {
		if r {
			nrel++
		}
	}
	if nrel == 0 || nrel == n {
		return
	}
	disc := func(p int) float64 {
		if p >= cutoff {
			return 0
		}
		return 1 / math.Log2(float64(p)+2)
	}
	ideal := 0.0
	for p := range min(nrel, cutoff) {
		ideal += disc(p)
	}
	for i := range n {
		if !rel[i] {
			continue
		}
		for j := range n {
			if rel[j] {
				continue
			}
			delta := math.Abs(disc(pos[i])-disc(pos[j])) / ideal
			if delta == 0 {
				// both past the cutoff: a small weight keeps them moving toward it
				delta = 0.01 / ideal / math.Log2(float64(cutoff)+2)
			}
			delta *= weight
			rho := 1 / (1 + math.Exp(score[i]-score[j]))
			g[i] += rho * delta
			g[j] -= rho * delta
			w := rho * (1 - rho) * delta
			h[i] += w
			h[j] += w
		}
	}
}

// thresholds are each feature's candidate split points: up to bins distinct quantiles.
func thresholds(rows [][]float64, bins int) [][]float64 {
	out := make([][]float64, NumFeatures)
	vals := make([]float64, len(rows))
	for f := range NumFeatures {
		for i, x := range rows {
			vals[i] = x[f]
		}
		slices.Sort(vals)
		var cuts []float64
		for b := 1; b < bins; b++ {
			v := vals[len(vals)*b/bins]
			if len(cuts) == 0 || v > cuts[len(cuts)-1] {
				cuts = append(cuts, v)
			}
		}
		// a cut at the maximum would split nothing off
		if len(cuts) > 0 && len(vals) > 0 && cuts[len(cuts)-1] >= vals[len(vals)-1] {
			cuts = cuts[:len(cuts)-1]
		}
		out[f] = cuts
	}
	return out
}

// binRows gives each row's bin per feature: the first cut at or above its value.
func binRows(rows [][]float64, cuts [][]float64) [][]uint8 {
	out := make([][]uint8, len(rows))
	for i, x := range rows {
		b := make([]uint8, NumFeatures)
		for f := range NumFeatures {
			b[f] = uint8(sort.SearchFloat64s(cuts[f], x[f]))
		}
		out[i] = b
	}
	return out
}

// growTree grows one tree level by level on the rows' gradients and hessians.
func growTree(bins [][]uint8, cuts [][]float64, g, h []float64, o TreeOptions) Tree {
	all := make([]int, len(bins))
	for i := range all {
		all[i] = i
	}
	allowed := make([]bool, NumFeatures)
	for f := range allowed {
		allowed[f] = o.Only == nil
	}
	for _, name := range o.Only {
		if f, ok := index[name]; ok {
			allowed[f] = true
		}
	}
	var t Tree
	leafValue := func(G, H float64) float64 { return o.Shrink * G / (H + o.Lambda) }
	type open struct {
		node  int
		rows  []int
		depth int
	}
	sum := func(rows []int) (G, H float64) {
		for _, r := range rows {
			G += g[r]
			H += h[r]
		}
		return
	}
	G, H := sum(all)
	t.Nodes = append(t.Nodes, Node{Value: leafValue(G, H), f: -1})
	queue := []open{{0, all, 0}}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c.depth >= o.Depth {
			continue
		}
		G, H := sum(c.rows)
		bestGain, bestF, bestB := 0.0, -1, 0
		for f := range NumFeatures {
			nb := len(cuts[f]) + 1
			if nb < 2 || !allowed[f] {
				continue
			}
			hg, hh := make([]float64, nb), make([]float64, nb)
			for _, r := range c.rows {
				hg[bins[r][f]] += g[r]
				hh[bins[r][f]] += h[r]
			}
			var GL, HL float64
			for b := range nb - 1 {
				GL += hg[b]
				HL += hh[b]
				GR, HR := G-GL, H-HL
				if HL < o.MinHess || HR < o.MinHess {
					continue
				}
				gain := GL*GL/(HL+o.Lambda) + GR*GR/(HR+o.Lambda) - G*G/(H+o.Lambda)
				if gain > bestGain {
					bestGain, bestF, bestB = gain, f, b
				}
			}
		}
		if bestF < 0 {
			continue
		}
		var left, right []int
		for _, r := range c.rows {
			if int(bins[r][bestF]) <= bestB {
				left = append(left, r)
			} else {
				right = append(right, r)
			}
		}
		lg, lh := sum(left)
		rg, rh := sum(right)
		l, r := len(t.Nodes), len(t.Nodes)+1
		t.Nodes = append(t.Nodes, Node{Value: leafValue(lg, lh), f: -1}, Node{Value: leafValue(rg, rh), f: -1})
		n := &t.Nodes[c.node]
		n.Feature, n.f, n.Threshold, n.Left, n.Right = Features[bestF], bestF, cuts[bestF][bestB], l, r
		queue = append(queue, open{l, left, c.depth + 1}, open{r, right, c.depth + 1})
	}
	return t
}

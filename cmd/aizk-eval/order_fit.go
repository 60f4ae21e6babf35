package main

// The fit's choices: bags, the trees' features, the prior, each query's weight.

import (
	"fmt"

	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

// balanceFile is --balance's value that weighs each traces file alike.
const balanceFile = "file"

// setBalance keys every query by what --balance names: "file" (its traces file: a data set in
// one form), "set" (its data set), or any metadata field; "" keys none, and every query
// weighs 1.
func setBalance(qs []orderQuery, by string) error {
	if by == "" {
		return nil
	}
	for i := range qs {
		switch by {
		case balanceFile:
			qs[i].balance = qs[i].file
		default:
			qs[i].balance = groupOf(qs[i], by)
		}
		if qs[i].balance == "<nil>" {
			return fmt.Errorf("%w: --balance %s: query %s has no such field", cli.ErrUsage, by, qs[i].Query.ID)
		}
	}
	return nil
}

// balanced are the fit's weights of qs: where qs are keyed (setBalance), the queries of each
// key weigh together what the queries of any other do, len(qs) over the number of keys, so
// a large set does not outvote a small one; else 1 each.
func balanced(qs []orderQuery) []float64 {
	out := make([]float64, len(qs))
	count := map[string]int{}
	for _, q := range qs {
		count[q.balance]++
	}
	for i, q := range qs {
		out[i] = 1
		if q.balance != "" {
			out[i] = float64(len(qs)) / float64(len(count)) / float64(count[q.balance])
		}
	}
	return out
}

// checkBags refuses --bags below 1, or above 1 with --kinds.
func checkBags(bags int, kinds bool) error {
	switch {
	case bags < 1:
		return fmt.Errorf("%w: --bags %d: at least 1 (1 fits one order on every query)", cli.ErrUsage, bags)
	case kinds && bags > 1:
		return fmt.Errorf("%w: --kinds with --bags %d: a fit of kinds apart is not bagged", cli.ErrUsage, bags)
	}
	return nil
}

// fitChoices checks --bags, applies --tree-features and --prior to fo, the prior being the
// fused order of the traces' settings, and keys train's queries by --balance.
func fitChoices(fo *ranker.FitOptions, train []orderQuery, treeFeatures, prior, balance string, bags int) error {
	if err := checkBags(bags, fo.Kinds); err != nil {
		return err
	}
	if err := setBalance(train, balance); err != nil {
		return err
	}
	switch treeFeatures {
	case "":
	case "place":
		fo.Trees.Only = ranker.PlaceFeatures
	default:
		return fmt.Errorf("%w: --tree-features %q: want \"place\" or \"\"", cli.ErrUsage, treeFeatures)
	}
	switch prior {
	case "":
	case "fused":
		fo.Prior = fusedPrior(train[0].Trace.Settings)
	default:
		return fmt.Errorf("%w: --prior %q: want \"fused\" or \"\"", cli.ErrUsage, prior)
	}
	return nil
}

// fusedPrior are the fused order's weights as the learned order's features: each lane's
// weight on its 1 / (rrf_k + rank), for turns and other memories alike.
func fusedPrior(s statement.Settings) map[string]float64 {
	out := map[string]float64{}
	for _, l := range statement.Lanes() {
		out["lane_"+l.String()] = s.Weights[l]
		out["doc_lane_"+l.String()] = s.Weights[l]
	}
	return out
}

// fitOrder fits a model on qs: the average of bags fits on bootstrap samples of them when
// bags > 1 (ranker.FitBagged).
func fitOrder(qs []orderQuery, name, fitted string, o ranker.FitOptions, bags int) (*ranker.Model, error) {
	data := make([]ranker.Query, len(qs))
	share := balanced(qs)
	for i, q := range qs {
		data[i] = ranker.Query{X: q.x, Rel: q.rel, Weight: share[i]}
	}
	weights, trees, err := ranker.FitBagged(data, o, bags)
	if err != nil {
		return nil, err
	}
	m, err := ranker.New(name, fitted, weights)
	if err != nil || len(trees) == 0 {
		return m, err
	}
	return m.WithTrees(trees)
}

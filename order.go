package recall

import (
	"slices"

	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/rerank"
	"github.com/recall-engine/recall/statement"
)

// ranked is a candidate in merit order, with its place in the statement's order.
type ranked struct {
	statement.Candidate
	FusedRank   int      // 1-based place in the statement's order
	RerankScore *float32 // nil when not reranked
	Why         string   // for a neighbour that came with a candidate: "answer" or "reply_to"
}

// unit is what the budget walk takes: a candidate, alone or with the neighbours it needs to
// be read, in their places' order; hit is the candidate's index.
type unit struct {
	members []ranked
	hit     int
	rank    int // its place in merit order, from 0: a pack lists its units so
}

// fusedHead returns the first K candidates of the statement's order as ranked candidates.
func fusedHead(all []statement.Candidate, k int) []ranked {
	head := all[:min(len(all), k)]
	out := make([]ranked, len(head))
	for i, c := range head {
		out[i] = ranked{Candidate: c, FusedRank: i + 1}
	}
	return out
}

// cutWeak drops the candidates far below the best: a fused score under ratio times the
// best's, and a rank in no lane better than rank. It returns the rest and how many it
// dropped. A ratio of 0 cuts nothing.
func cutWeak(cands []ranked, ratio float64, rank int) ([]ranked, int) {
	if ratio <= 0 || len(cands) == 0 {
		return cands, 0
	}
	top := cands[0].Score
	for _, c := range cands {
		top = max(top, c.Score)
	}
	out := cands[:0:0]
	for _, c := range cands {
		best := 0
		for _, h := range c.Lanes {
			if h.Rank > 0 && (best == 0 || h.Rank < best) {
				best = h.Rank
			}
		}
		if c.Score >= ratio*top || (best > 0 && best <= rank) || c.Direct {
			out = append(out, c)
		}
	}
	return out, len(cands) - len(out)
}

// meritOrder puts candidates in merit order: the reranked head by score, direct sources
// first, the rest in statement order; then MMR when lambda is in (0, 1).
func meritOrder(cands []ranked, scores []float32, lambda float64) []ranked {
	out := rerank.Order(cands, scores, func(c ranked) bool { return c.Direct })
	if lambda > 0 {
		out = rerank.MMR(out, func(c ranked) string { return c.Text }, lambda)
	}
	return out
}

// units groups the merit order into the walk's units: each of the best hits candidates with
// a place (by their fused rank) comes with the neighbours the statement returned for it,
// and a memory is in one unit only, the first that has it.
func units(ordered []ranked, hits int) []unit {
	withPlace := []int{}
	for _, c := range ordered {
		if c.Position > 0 {
			withPlace = append(withPlace, c.FusedRank)
		}
	}
	slices.Sort(withPlace)
	best := map[int]bool{}
	for _, r := range withPlace[:min(len(withPlace), hits)] {
		best[r] = true
	}
	placed := map[int64]bool{}
	var out []unit
	for _, c := range ordered {
		if placed[c.ID] {
			continue
		}
		placed[c.ID] = true
		u := unit{members: []ranked{c}, rank: len(out)}
		if best[c.FusedRank] {
			for _, n := range c.Context {
				if placed[n.ID] {
					continue
				}
				placed[n.ID] = true
				m := ranked{Candidate: n, Why: n.ContextWhy}
				if n.Position < c.Position {
					u.members = append([]ranked{m}, u.members...)
					u.hit++
				} else {
					u.members = append(u.members, m)
				}
			}
		}
		out = append(out, u)
	}
	return out
}

// unitCosts returns the walk's cost and cut for units: a unit costs its members' tokens;
// cut to a budget nothing fits, it is its hit alone, trimmed.
func unitCosts(c budget.TokenCounter) (func(unit) int, func(unit, int) (unit, int)) {
	cost := func(u unit) int {
		n := 0
		for _, m := range u.members {
			n += c.Count(m.Text)
		}
		return n
	}
	cut := func(u unit, b int) (unit, int) {
		h := u.members[u.hit]
		h.Text = budget.Trim(h.Text, b, c)
		return unit{members: []ranked{h}, rank: u.rank}, c.Count(h.Text)
	}
	return cost, cut
}

// ids lists the units' memories' external ids, in order.
func ids(us []unit) []string {
	var out []string
	for _, u := range us {
		for _, m := range u.members {
			out = append(out, m.ExternalID)
		}
	}
	return out
}

// Reorder fuses the trace's candidates (every lane's, read once) with settings s as the
// statement would (statement.Fuse), orders and groups them as Recall does without a
// reranker, and returns the external ids in the order a pack with room for all of them
// gives. It is how aizk-eval tune fits settings without running the statement again; with
// the trace's own settings it gives what its Recall gave.
func (t *Trace) Reorder(s statement.Settings) []string {
	cands := make([]statement.Candidate, len(t.Candidates))
	for i, c := range t.Candidates {
		cands[i] = c.Candidate
	}
	head := fusedHead(statement.Fuse(cands, s, t.now), s.K)
	head, _ = cutWeak(head, s.CutRatio, s.CutRank)
	return ids(units(meritOrder(head, nil, t.mmr), s.ContextHits))
}

package pack

import (
	"slices"

	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/rerank"
	"github.com/recall-engine/recall/statement"
)

// Ranked is a candidate in merit order, with its place in the statement's order.
type Ranked struct {
	statement.Candidate
	FusedRank   int      // 1-based place in the statement's order
	RerankScore *float32 // nil when not reranked
	Why         string   // for a neighbour that came with a candidate: "answer" or "reply_to"
	// Features are the candidate's features when a learned order ranked it (package ranker),
	// and OrderScore its score there; nil without one.
	Features   []float64
	OrderScore *float64
	// AlsoSaid are the candidates below it that restate it (Restatement), left out of the
	// pack for it.
	AlsoSaid []Restatement
	// Part, when the pack gives the matched passage of a long memory instead of the whole
	// (Passages), is that passage's place in the memory's text; Text is then the passage.
	Part *statement.Span
}

// Unit is what the budget walk takes: a candidate, alone or with the neighbours it needs to
// be read, in their places' order; Hit is the candidate's index in Members.
type Unit struct {
	Members []Ranked
	Hit     int
	Rank    int // its place in merit order, from 0: a pack lists its units so
}

// Head returns the first k candidates of the statement's order as ranked candidates.
func Head(all []statement.Candidate, k int) []Ranked {
	head := all[:min(len(all), k)]
	out := make([]Ranked, len(head))
	for i, c := range head {
		out[i] = Ranked{Candidate: c, FusedRank: i + 1}
	}
	return out
}

// CutWeak drops the candidates far below the best: a fused score under ratio times the
// best's, and a rank in no lane better than rank. It returns the rest and how many it
// dropped. A ratio of 0 cuts nothing.
func CutWeak(cands []Ranked, ratio float64, rank int) ([]Ranked, int) {
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

// MeritOrder puts candidates in merit order: the reranked head by score, direct sources
// first, the rest in statement order; then MMR when lambda is in (0, 1).
func MeritOrder(cands []Ranked, scores []float32, lambda float64) []Ranked {
	out := rerank.Order(cands, scores, func(c Ranked) bool { return c.Direct })
	if lambda > 0 {
		out = rerank.MMR(out, func(c Ranked) string { return c.Text }, lambda)
	}
	return out
}

// Units groups the merit order into the walk's units: each of the best hits candidates with
// a place (by their fused rank) comes with the neighbours the statement returned for it,
// and a memory is in one unit only, the first that has it. A candidate that restates one
// above it (the same kind, speaker and TextKey: the same words said again, whatever the
// write's duplicate policy kept) is no unit of its own: the budget is not spent twice on the
// same words, and it is named in the first one's AlsoSaid.
func Units(ordered []Ranked, hits int) []Unit {
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
	// Only candidates whose keys' signatures meet need their keys: most texts are said once.
	sigs, repeated := make(map[int64]keySig, len(ordered)), map[keySig]int{}
	for _, c := range ordered {
		sig := signature(c.Kind, c.Speaker, c.Text)
		sigs[c.ID] = sig
		repeated[sig]++
	}
	placed := map[int64]bool{}
	said := map[sayKey][2]int{} // what a unit's hit says -> that unit and its hit's index
	var out []Unit
	for _, c := range ordered {
		if placed[c.ID] {
			continue
		}
		placed[c.ID] = true
		k := sayKey{c.Kind, c.Speaker, ""}
		if sig := sigs[c.ID]; repeated[sig] > 1 { // else no other candidate can say the same
			k.text = TextKey(c.Text)
		}
		if at, ok := said[k]; ok && k.text != "" {
			h := &out[at[0]].Members[at[1]]
			h.AlsoSaid = append(h.AlsoSaid, restatement(c))
			continue
		}
		u := Unit{Members: []Ranked{c}, Rank: len(out)}
		if best[c.FusedRank] {
			for _, n := range c.Context {
				if placed[n.ID] {
					continue
				}
				placed[n.ID] = true
				m := Ranked{Candidate: n, Why: n.ContextWhy}
				if n.Position < c.Position {
					u.Members = append([]Ranked{m}, u.Members...)
					u.Hit++
				} else {
					u.Members = append(u.Members, m)
				}
			}
		}
		if k.text != "" {
			said[k] = [2]int{len(out), u.Hit}
		}
		out = append(out, u)
	}
	return out
}

func restatement(c Ranked) Restatement {
	r := Restatement{ID: c.ID, ExternalID: c.ExternalID, OccurredStart: c.OccurredStart}
	if c.Source != nil {
		r.SourceID = c.Source.ID
	}
	return r
}

// costs returns the walk's cost and cut for units: a unit costs its members' tokens; cut to
// a budget nothing fits, it is its hit alone, trimmed.
func costs(c budget.TokenCounter) (func(Unit) int, func(Unit, int) (Unit, int)) {
	cost := func(u Unit) int {
		n := 0
		for _, m := range u.Members {
			n += c.Count(m.Text)
		}
		return n
	}
	cut := func(u Unit, b int) (Unit, int) {
		h := u.Members[u.Hit]
		h.Text = budget.Trim(h.Text, b, c)
		return Unit{Members: []Ranked{h}, Rank: u.Rank}, c.Count(h.Text)
	}
	return cost, cut
}

// IDs lists the units' memories' external ids, in order.
func IDs(us []Unit) []string {
	var out []string
	for _, u := range us {
		for _, m := range u.Members {
			out = append(out, m.ExternalID)
		}
	}
	return out
}

// AnchorsFirst keeps a memory that only the context lane found (by its neighbours' words)
// from preceding the neighbour whose words brought it: such a memory whose neighbours among
// cands (same source, one place before or after, found by another lane) all come later is
// moved to just after the first of them. A memory without such a neighbour among cands keeps
// its place. Whatever its kind, a memory then ranks by what found it, never by what its
// neighbour was found by alone.
func AnchorsFirst(cands []Ranked) []Ranked {
	type place struct {
		source int64
		pos    int
	}
	at := map[place]int{}
	for i, c := range cands {
		if c.Source != nil && c.Position > 0 {
			at[place{c.Source.ID, c.Position}] = i
		}
	}
	// waiting[i]: the context-only memories deferred until cands[i] is placed.
	waiting := map[int][]int{}
	deferred := make([]bool, len(cands))
	for i, c := range cands {
		if !contextOnly(c) || c.Source == nil || c.Position == 0 {
			continue
		}
		first := -1
		for _, d := range []int{-1, 1} {
			j, ok := at[place{c.Source.ID, c.Position + d}]
			if !ok || contextOnly(cands[j]) {
				continue
			}
			if j < i {
				first = -1 // an anchor comes first already
				break
			}
			if first < 0 || j < first {
				first = j
			}
		}
		if first > i {
			waiting[first] = append(waiting[first], i)
			deferred[i] = true
		}
	}
	if len(waiting) == 0 {
		return cands
	}
	out := make([]Ranked, 0, len(cands))
	for i, c := range cands {
		if deferred[i] {
			continue
		}
		out = append(out, c)
		for _, j := range waiting[i] {
			out = append(out, cands[j])
		}
	}
	return out
}

// CorroboratedFirst keeps a memory that only the context lane found (through its
// neighbours' words, or as the answer after a question) from ranking above a memory without
// a place (a note, a document: it has no neighbours to be found through) that at least lanes
// lanes found: each such memory above the last of those moves to just after it, the moved
// keeping their order. A scope of notes and chat does not rank a note by its having no
// neighbours; among turns, all of which have them, the order is the model's (a rule over
// turns too cost LoCoMo's messages 0.037 R@10 in sample: eval/results/order-hashing-v4.md).
func CorroboratedFirst(cands []Ranked, lanes int) []Ranked {
	last := -1
	for i, c := range cands {
		n := 0
		for _, h := range c.Lanes {
			if h.Rank > 0 {
				n++
			}
		}
		if n >= lanes && c.Position == 0 {
			last = i
		}
	}
	var moved []Ranked
	out := make([]Ranked, 0, len(cands))
	for i, c := range cands {
		if i < last && contextOnly(c) {
			moved = append(moved, c)
			continue
		}
		out = append(out, c)
		if i == last {
			out = append(out, moved...)
		}
	}
	if len(moved) == 0 {
		return cands
	}
	return out
}

// contextOnly reports whether only the context lane found c.
func contextOnly(c Ranked) bool {
	for l, h := range c.Lanes {
		if h.Rank > 0 && statement.Lane(l) != statement.Context {
			return false
		}
	}
	return c.Lanes[statement.Context].Rank > 0
}

// ReplacedAfterCurrent puts each superseded memory whose successor is among cands just after
// it (with Options.MarkStale, which packs what no longer holds, marked): the pack shows the
// current fact and then the one it replaced, "Ana lives in Berlin" and then "Ana lives in
// Lisbon (superseded by ...)", wherever the older one ranked. A chain follows itself (m3,
// m2, m1); two memories a successor replaced follow it in their order among cands. The rest
// keep their order, and a superseded memory whose successor is not among cands its place.
func ReplacedAfterCurrent(cands []Ranked) []Ranked {
	present := map[string]bool{}
	for _, c := range cands {
		present[c.ExternalID] = true
	}
	replaced := map[string][]int{} // successor's external id -> what it replaced, in order
	follows := make([]bool, len(cands))
	for i, c := range cands {
		if c.ReplacedBy != "" && c.ReplacedBy != c.ExternalID && present[c.ReplacedBy] {
			replaced[c.ReplacedBy] = append(replaced[c.ReplacedBy], i)
			follows[i] = true
		}
	}
	if len(replaced) == 0 {
		return cands
	}
	out := make([]Ranked, 0, len(cands))
	placed := make([]bool, len(cands))
	var place func(i int)
	place = func(i int) {
		if placed[i] {
			return
		}
		placed[i] = true
		out = append(out, cands[i])
		for _, j := range replaced[cands[i].ExternalID] {
			place(j)
		}
	}
	for i := range cands {
		if !follows[i] {
			place(i)
		}
	}
	for i := range cands { // a cycle of supersessions: in its order
		place(i)
	}
	return out
}

// Package pack is the pack stage of a recall: from the candidates in merit order to the Pack
// the caller gets. It groups each candidate with the neighbours it needs to be read (units),
// chooses between summaries and the memories they cover (the altitude), walks the units
// into the token budget (package budget), fits the graph context in what the items leave,
// and lists each source once. It holds the Pack's types, which the root package aliases.
// It reads no database and calls no model.
package pack

import (
	"cmp"
	"slices"

	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/statement"
)

// Input is what Fill packs: the candidates in merit order and how to pack them.
type Input struct {
	Ordered []Ranked
	// ContextHits is how many of the best candidates with a place come with their
	// neighbours (Settings.ContextHits).
	ContextHits  int
	Budget       int // tokens, at least 1
	Altitude     Altitude
	Passages     Passages
	GraphContext bool
	Tokens       budget.TokenCounter
}

// Result is what the walk decided, for a trace: the units packed and omitted, and the
// candidates the altitude step left out (memory id -> why).
type Result struct {
	Walk budget.Pack[Unit]
	Left map[int64]Decision
}

// Fill walks in.Ordered into in.Budget and fills p's items, sources, climbs, graph context,
// omitted items and token counts. A candidate and the neighbours it needs are walked as one
// unit and packed as a run: their items are adjacent, in their places' order, and share a
// Run number. The altitude step first chooses between summaries and the memories they
// cover; with a graph context, the relations of the packed items take what the items leave,
// and when that does not hold them the items are walked again in all but GraphContextShare
// of the budget.
func Fill(p *Pack, in Input) Result {
	cost, cut := costs(in.Tokens)
	smaller := passageOf(in.Passages)
	walkIn := func(b int) func([]Unit) budget.Pack[Unit] {
		return func(us []Unit) budget.Pack[Unit] {
			w, _ := budget.WalkSmaller(us, cost, cut, smaller, max(b, 1)) // a budget >= 1: it cannot fail
			return w
		}
	}
	base := choosePassages(Units(in.Ordered, in.ContextHits), in.Passages, in.Tokens)
	// The altitude is decided for the budget the items get.
	pack := func(b int) (altitudeResult, budget.Pack[Unit]) {
		alt := applyAltitude(p.Altitude, base, walkIn(b))
		return alt, walkIn(b)(alt.units)
	}
	alt, walk := pack(in.Budget)
	if in.GraphContext {
		triplets := graphContext(walk.Items)
		if need := tripletsCost(triplets, in.Tokens); need > in.Budget-walk.Used {
			if reserve := min(need, in.Budget/GraphContextShare); reserve > 0 {
				alt, walk = pack(in.Budget - reserve)
				triplets = graphContext(walk.Items)
			}
		}
		p.GraphContext, p.GraphTokens = fitTriplets(triplets, in.Budget-walk.Used, in.Tokens)
	}
	// The pack lists its units in merit order, whatever order the walk took them in.
	slices.SortStableFunc(walk.Items, func(a, b budget.Packed[Unit]) int { return cmp.Compare(a.Item.Rank, b.Item.Rank) })
	inPack := p.addItems(walk.Items, in.Tokens)
	for _, c := range alt.climbs {
		if inPack[c.Summary] { // a summary that climbed but did not fit replaced nothing in the pack
			p.Climbs = append(p.Climbs, c)
		}
	}
	for _, o := range walk.Omitted {
		for _, m := range o.Item.Members {
			p.Omitted = append(p.Omitted, Omitted{ID: m.ID, Tokens: in.Tokens.Count(m.Text), Reason: o.Reason})
		}
	}
	p.Used, p.OmittedTokens, p.Empty = walk.Used+p.GraphTokens, walk.OmittedTokens, walk.Empty
	return Result{Walk: walk, Left: alt.left}
}

// addItems adds the packed units' members as items, numbering the runs, and each source
// once; it returns the memory ids it packed.
func (p *Pack) addItems(units []budget.Packed[Unit], c budget.TokenCounter) map[int64]bool {
	runs := 0
	inPack, seen := map[int64]bool{}, map[int64]bool{}
	for _, it := range units {
		run := 0
		if len(it.Item.Members) > 1 {
			runs++
			run = runs
		}
		anchor := it.Item.Members[it.Item.Hit].ID
		for _, m := range it.Item.Members {
			item := newItem(m, c.Count(m.Text), it.Truncated)
			item.Run, item.Context = run, m.Why
			if m.Why != "" {
				item.AttachedTo = anchor
			}
			p.Items = append(p.Items, item)
			inPack[m.ID] = true
			if m.Source != nil && !seen[m.Source.ID] {
				seen[m.Source.ID] = true
				p.Sources = append(p.Sources, *m.Source)
			}
		}
	}
	return inPack
}

func newItem(c Ranked, tokens int, truncated bool) Item {
	it := Item{
		ID: c.ID, ExternalID: c.ExternalID, Kind: c.Kind, Text: c.Text, Truncated: truncated, Tokens: tokens,
		Entities:      c.Entities,
		OccurredStart: c.OccurredStart, OccurredEnd: c.OccurredEnd, Tags: c.Tags, Metadata: c.Metadata,
		Score: c.Score, Direct: c.Direct, StatementRank: c.FusedRank, Lanes: c.Lanes, RerankScore: c.RerankScore,
		Position: c.Position, Speaker: c.Speaker, Covers: c.Covers, OrderScore: c.OrderScore, Stale: c.Stale,
		AlsoSaid: c.AlsoSaid, Passage: c.Part,
	}
	if s := c.Source; s != nil {
		it.SourceID, it.SourceTitle, it.SourceURI = s.ID, s.Title, s.URI
	}
	return it
}

// Abstain computes the abstention signals from the statement's first k candidates: none,
// fewer than minResults, the best vector similarity under minSim (when the query had a
// vector).
func Abstain(cands []statement.Candidate, vector bool, minSim float64, minResults int) Abstention {
	a := Abstention{NoMatch: len(cands) == 0, TooFew: len(cands) < minResults}
	if vector {
		for _, c := range cands {
			if c.Lanes[statement.Vector].Rank > 0 {
				a.TopSimilarity = max(a.TopSimilarity, c.Lanes[statement.Vector].Score)
			}
		}
		a.LowSimilarity = a.TopSimilarity < minSim
	}
	return a
}

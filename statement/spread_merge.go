package statement

import (
	"cmp"
	"slices"
	"time"
)

// The merges of a recall across workers (spread.go): each ranks again over every worker what
// the statement ranks over every set, by the statement's own rule, so that the fused list is
// one server's. A memory is on one worker (its set's), so no id comes from two.

// gatherRow is a row of the gather round (sql/citus/spread.sql, "gather").
type gatherRow struct {
	Kind                                       string
	ID                                         *int64
	Term                                       *string
	Docs, TotalLen, CDocs, CTotalLen, CTotalNL *int64
	Sim                                        *float64
	Direct                                     *bool
}

// gathered is the gather round merged: the binds of the lanes round.
type gathered struct {
	docs, totalLen, cdocs, ctotalLen, ctotalNlen []int64
	terms                                        []string
	df, cdf                                      []int64
	entities                                     []int64
	entitySims                                   []float64
	titles                                       []int64
	titleSims                                    []float64
	titleDirect                                  []bool
}

// mergeGather keeps every set's statistics and term counts (the lanes round sums them as
// visible_stats and bm25_idf sum the sets'), every entity the exact probe names or the
// fuzzy probe's best mention_entities_k, and the title probe's best title_sources_k.
func mergeGather(rows []gatherRow, fuzzy bool, s Settings) gathered {
	var g gathered
	type named struct {
		id     int64
		sim    float64
		direct bool
	}
	var ents, titles []named
	for _, r := range rows {
		switch r.Kind {
		case "set":
			g.docs, g.totalLen = append(g.docs, *r.Docs), append(g.totalLen, *r.TotalLen)
			g.cdocs, g.ctotalLen, g.ctotalNlen = append(g.cdocs, *r.CDocs), append(g.ctotalLen, *r.CTotalLen), append(g.ctotalNlen, *r.CTotalNL)
		case "term":
			g.terms, g.df, g.cdf = append(g.terms, *r.Term), append(g.df, *r.Docs), append(g.cdf, *r.TotalLen)
		case "entity":
			ents = append(ents, named{id: *r.ID, sim: *r.Sim})
		case "title":
			titles = append(titles, named{id: *r.ID, sim: *r.Sim, direct: *r.Direct})
		}
	}
	best := func(xs []named, k int) []named {
		slices.SortFunc(xs, func(a, b named) int { return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(a.id, b.id)) })
		return xs[:min(k, len(xs))]
	}
	if fuzzy {
		ents = best(ents, s.MentionEntitiesK)
	}
	for _, e := range ents {
		g.entities, g.entitySims = append(g.entities, e.id), append(g.entitySims, e.sim)
	}
	for _, t := range best(titles, s.TitleSourcesK) {
		g.titles, g.titleSims, g.titleDirect = append(g.titles, t.id), append(g.titleSims, t.sim), append(g.titleDirect, t.direct)
	}
	return g
}

// laneRow is a row of the lanes round (sql/citus/spread.sql, "lanes").
type laneRow struct {
	Kind          string
	ID            int64
	Ref           *int64
	Score, Score2 *float64
	Ties          *int64
	Flag          *bool
	At            *time.Time
	Ents          []int64
	Recency       *float64
	Frequency     *float64
	AccessCount   *int64
}

// spreadHit is a memory in one lane's merged list.
type spreadHit struct {
	id      int64
	rank    int64
	score   float64
	direct  bool
	passage *int32 // bm25's: the passage that scored (the lanes round's ref)
}

// merged is the lanes round merged: each lane's list, the access terms, and what the graph
// lane needs (the bm25 and vector hits in order, with the entities they mention).
type merged struct {
	lanes  [NumLanes][]spreadHit
	access map[int64]laneRow
	bm25   []laneRow // bm25_scored's best, best first
	vector []laneRow // vector_hits, nearest first
}

func byScore(a, b laneRow) int {
	return cmp.Or(cmp.Compare(*b.Score, *a.Score), cmp.Compare(a.ID, b.ID))
}

// A mergeRule is how a cross-worker recall ranks a lane over every worker's rows for it (a
// field of the lane's registry entry).
type mergeRule uint8

const (
	noMerge mergeRule = iota
	// mergeTop: the lane's depth best by score (bm25), each with its passage.
	mergeTop
	// mergeNearest: the lane's depth nearest by distance, those within vector_max_distance
	// ranked in that order (vector).
	mergeNearest
	// mergeMidRanked: the depth best by score, ties sharing their mid rank (midRanked:
	// mention, title).
	mergeMidRanked
	// mergeTemporalRule, mergeContextRule: the named rules of mergeTemporal and mergeContext.
	mergeTemporalRule
	mergeContextRule
	// mergeGraphRound: ranked by a round of its own on the coordinator after the others are
	// merged (spread.graph), from their seeds.
	mergeGraphRound
)

// mergeLanes ranks the plan's lanes over the workers' rows, each by its registry's merge
// rule (the graph lane's round runs after: spread.graph), and keeps the bm25 and vector hits
// the graph lane seeds from whatever the plan.
func mergeLanes(rows []laneRow, plan Plan, s Settings) merged {
	m := merged{access: map[int64]laneRow{}}
	kinds := map[string][]laneRow{}
	for _, r := range rows {
		if r.Kind == "access" {
			m.access[r.ID] = r
			continue
		}
		kinds[r.Kind] = append(kinds[r.Kind], r)
	}
	m.bm25 = kinds[lanes[BM25].name]
	slices.SortFunc(m.bm25, byScore)
	// vector_hits is the vector_k nearest; the lane, those within vector_max_distance.
	m.vector = kinds[lanes[Vector].name]
	slices.SortFunc(m.vector, func(a, b laneRow) int { return cmp.Or(cmp.Compare(*a.Score2, *b.Score2), cmp.Compare(a.ID, b.ID)) })
	m.vector = m.vector[:min(len(m.vector), s.VectorK)]
	for _, l := range plan.Lanes() {
		rows, k := kinds[lanes[l].name], s.Depth(l)
		switch lanes[l].merge {
		case mergeTop:
			slices.SortFunc(rows, byScore)
			for i, r := range rows[:min(len(rows), k)] {
				h := spreadHit{id: r.ID, rank: int64(i + 1), score: *r.Score}
				if r.Ref != nil {
					h.passage = ptrTo(int32(*r.Ref))
				}
				m.lanes[l] = append(m.lanes[l], h)
			}
		case mergeNearest:
			slices.SortFunc(rows, func(a, b laneRow) int { return cmp.Or(cmp.Compare(*a.Score2, *b.Score2), cmp.Compare(a.ID, b.ID)) })
			for _, r := range rows[:min(len(rows), k)] {
				if *r.Score2 <= s.VectorMaxDistance {
					m.lanes[l] = append(m.lanes[l], spreadHit{id: r.ID, rank: int64(len(m.lanes[l]) + 1), score: *r.Score})
				}
			}
		case mergeMidRanked:
			m.lanes[l] = midRanked(rows, k)
		case mergeTemporalRule:
			m.lanes[l] = mergeTemporal(rows, s)
		case mergeContextRule:
			m.lanes[l] = mergeContext(rows, kinds["handoff"], k)
		case mergeGraphRound:
		}
	}
	return m
}

// midRanked ranks rows whose ties share their mid rank (mention, title): rank() plus half the
// tied rows before the lane's cut, whose count each text gives on the first of its rows of a
// score (a text that cut all its rows of a score has k better rows, so that score is past the
// cut here too).
func midRanked(rows []laneRow, k int) []spreadHit {
	ties := map[float64]int64{}
	for _, r := range rows {
		ties[*r.Score] += *r.Ties
	}
	slices.SortFunc(rows, byScore)
	out := make([]spreadHit, 0, min(k, len(rows)))
	better := 0
	for i, r := range rows[:min(k, len(rows))] {
		if i > 0 && *rows[i-1].Score != *r.Score {
			better = i
		}
		out = append(out, spreadHit{id: r.ID, rank: int64(better+1) + (ties[*r.Score]-1)/2, score: *r.Score, direct: r.Flag != nil && *r.Flag})
	}
	return out
}

// mergeTemporal is temporal_lane over every worker's candidates: of those before the window's
// middle (tail) the temporal_k latest over all, then each memory's least gap and distance to
// the middle, the temporal_k nearest.
func mergeTemporal(rows []laneRow, s Settings) []spreadHit {
	var head, tail []laneRow
	for _, r := range rows {
		if *r.Flag {
			tail = append(tail, r)
		} else {
			head = append(head, r)
		}
	}
	slices.SortFunc(tail, func(a, b laneRow) int { return cmp.Or(b.At.Compare(*a.At), cmp.Compare(b.ID, a.ID)) })
	type gm struct{ gap, mid float64 }
	best := map[int64]gm{}
	for _, r := range append(head, tail[:min(len(tail), s.TemporalK)]...) {
		g, ok := best[r.ID]
		if !ok {
			g = gm{*r.Score, *r.Score2}
		}
		best[r.ID] = gm{min(g.gap, *r.Score), min(g.mid, *r.Score2)}
	}
	ids := make([]int64, 0, len(best))
	for id := range best {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int64) int {
		return cmp.Or(cmp.Compare(best[a].gap, best[b].gap), cmp.Compare(best[a].mid, best[b].mid), cmp.Compare(a, b))
	})
	out := make([]spreadHit, 0, min(s.TemporalK, len(ids)))
	for i, id := range ids[:min(s.TemporalK, len(ids))] {
		out = append(out, spreadHit{id: id, rank: int64(i + 1), score: 1 / (1 + best[id].gap/s.TemporalScale)})
	}
	return out
}

// mergeContext is context_lane over every worker's rows: the context_k best context scores
// over all, the answers their questions hand their score to (the handoffs of questions past
// that cut dropped), each memory's better of its own score and its handoff, the context_k
// best.
func mergeContext(top, handoffs []laneRow, k int) []spreadHit {
	slices.SortFunc(top, byScore)
	top = top[:min(k, len(top))]
	score := map[int64]float64{}
	inTop := map[int64]bool{}
	for _, r := range top {
		score[r.ID], inTop[r.ID] = *r.Score, true
	}
	for _, h := range handoffs {
		if !inTop[*h.Ref] {
			continue
		}
		switch own, ok := score[h.ID]; {
		case ok:
			score[h.ID] = max(own, *h.Score)
		case h.Score2 != nil:
			score[h.ID] = max(*h.Score2, *h.Score)
		default:
			score[h.ID] = *h.Score
		}
	}
	ids := make([]int64, 0, len(score))
	for id := range score {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int64) int { return cmp.Or(cmp.Compare(score[b], score[a]), cmp.Compare(a, b)) })
	out := make([]spreadHit, 0, min(k, len(ids)))
	for i, id := range ids[:min(k, len(ids))] {
		out = append(out, spreadHit{id: id, rank: int64(i + 1), score: score[id]})
	}
	return out
}

package pack

import (
	"cmp"
	"slices"

	"github.com/recall-engine/recall/budget"
)

// Altitude says which layer of the memory a pack draws from: the memories, the summaries
// that cover them, or (auto) whichever the budget allows.
type Altitude string

// Altitudes. The zero value means AltitudeAuto.
const (
	// AltitudeAuto gives a summary's covered memories when those that made the cut fit the
	// budget, and climbs to the summary, in place of them, when none of them does.
	AltitudeAuto Altitude = "auto"
	// AltitudeMemories packs memories only: summaries are left out.
	AltitudeMemories Altitude = "memories"
	// AltitudeSummaries packs every summary that made the cut, in place of the memories it
	// covers.
	AltitudeSummaries Altitude = "summaries"
)

// Climb is a summary packed in place of the memories it covers.
type Climb struct {
	Summary  int64   `json:"summary"`  // the summary's memory id
	Replaced []int64 `json:"replaced"` // the covered memories among the candidates it replaced
}

// Decisions of the altitude step (a trace's).
const (
	// AltitudeLeft: a summary left out of a memories-altitude pack.
	AltitudeLeft Decision = "altitude_memories"
	// Descended: a summary left out because memories it covers that made the cut fit.
	Descended Decision = "descended"
	// Replaced: a memory left out for a summary that covers it.
	Replaced Decision = "replaced_by_summary"
)

// altitudeResult is what the altitude step decided: the units to walk, the summaries that
// climbed, and the candidates it left out (memory id -> why).
type altitudeResult struct {
	units  []Unit
	climbs []Climb
	left   map[int64]Decision
}

// isSummary reports whether a member is a summary that covers some memory.
func isSummary(m Ranked) bool { return m.Kind == "summary" && len(m.Covers) > 0 }

// applyAltitude chooses, for the merit-ordered units, between each summary that made the
// cut and the memories it covers, so that no pack holds both:
//
//   - memories: every summary is left out;
//   - summaries: every memory a present summary covers is left out;
//   - auto: the walk of the units without summaries decides, for each summary, between it
//     and its covered candidates (the memories it covers among the units). When that walk
//     packs some of them, they are given and the summary is left out (descended): the pack
//     keeps the memories the lanes found, which a summary holds only in part. When it packs
//     none, the group's memories do not fit: the summary climbs and its covered candidates
//     are left out. Summaries are walked after the memories, in what the memories leave, so
//     they add to the memories' pack and never displace it (the pack lists its items in
//     merit order all the same); a summary that covers no candidate is walked there too.
//
// A unit whose hit is left out goes whole; a neighbour that is left out leaves its unit.
func applyAltitude(mode Altitude, us []Unit, walk func([]Unit) budget.Pack[Unit]) altitudeResult {
	res := altitudeResult{left: map[int64]Decision{}}
	var summaries []int // indexes of units whose hit is a covering summary
	for i, u := range us {
		if isSummary(u.Members[u.Hit]) {
			summaries = append(summaries, i)
		}
	}
	if len(summaries) == 0 {
		res.units = us
		return res
	}
	base := make([]Unit, 0, len(us))
	at := map[int64]int{} // memory id -> index in us of the unit that holds it
	for i, u := range us {
		if isSummary(u.Members[u.Hit]) {
			continue
		}
		base = append(base, u)
		for _, m := range u.Members {
			at[m.ID] = i
		}
	}
	if mode == AltitudeMemories {
		for _, i := range summaries {
			res.left[us[i].Members[us[i].Hit].ID] = AltitudeLeft
		}
		res.units = base
		return res
	}
	packed := map[int64]bool{}
	if mode == AltitudeAuto {
		for _, p := range walk(base).Items {
			for _, m := range p.Item.Members {
				packed[m.ID] = true
			}
		}
	}
	plan := res.decide(mode, us, summaries, at, packed)
	res.units = plan.order(us)
	return res
}

// altitudePlan is where each unit goes: the memories left out, the summaries' places.
type altitudePlan struct {
	gone  map[int64]bool // memories left out
	place map[int]int    // unit index -> the index it is walked at
	after map[int]bool   // auto: walked after every memory
}

// decide goes through the summaries: each climbs (its covered candidates leave) or
// descends (it leaves), and says where it is walked.
func (res *altitudeResult) decide(mode Altitude, us []Unit, summaries []int, at map[int64]int, packed map[int64]bool) altitudePlan {
	p := altitudePlan{gone: map[int64]bool{}, place: map[int]int{}, after: map[int]bool{}}
	for _, i := range summaries {
		s := us[i].Members[us[i].Hit]
		var covered []int64
		first := i
		for _, id := range s.Covers {
			if j, ok := at[id]; ok {
				covered = append(covered, id)
				first = min(first, j)
			}
		}
		if len(covered) == 0 {
			p.after[i] = mode == AltitudeAuto
			continue
		}
		climb := mode == AltitudeSummaries
		if !climb {
			climb = true
			for _, id := range covered {
				climb = climb && !packed[id]
			}
		}
		if !climb {
			p.gone[s.ID] = true
			res.left[s.ID] = Descended
			continue
		}
		p.after[i] = mode == AltitudeAuto
		if mode == AltitudeSummaries {
			p.place[i] = first
			us[i].Rank = us[first].Rank
		}
		slices.Sort(covered)
		res.climbs = append(res.climbs, Climb{Summary: s.ID, Replaced: covered})
		for _, id := range covered {
			p.gone[id] = true
			if _, ok := res.left[id]; !ok {
				res.left[id] = Replaced
			}
		}
	}
	return p
}

// order lays the units out for the walk without what left. At the summaries altitude a
// climbing summary is walked just before the unit whose place it takes: key 2*place, where
// every other unit has 2*index+1. At auto, summaries are walked after every other unit.
func (p altitudePlan) order(us []Unit) []Unit {
	type placed struct {
		key int
		u   Unit
	}
	var order []placed
	for i, u := range us {
		if p.gone[u.Members[u.Hit].ID] {
			continue
		}
		kept := Unit{Rank: u.Rank}
		for j, m := range u.Members {
			if p.gone[m.ID] {
				continue
			}
			if j == u.Hit {
				kept.Hit = len(kept.Members)
			}
			kept.Members = append(kept.Members, m)
		}
		key := 2*i + 1
		if at, ok := p.place[i]; ok && at < i {
			key = 2 * at
		}
		if p.after[i] {
			key += 2 * len(us)
		}
		order = append(order, placed{key: key, u: kept})
	}
	slices.SortStableFunc(order, func(a, b placed) int { return cmp.Compare(a.key, b.key) })
	out := make([]Unit, len(order))
	for i, x := range order {
		out[i] = x.u
	}
	return out
}

package recall

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/statement"
)

// Altitude says which layer of the memory a pack draws from: the memories, the summaries
// that cover them, or (auto) whichever the budget allows.
type Altitude string

// Altitudes. The zero value is AltitudeAuto.
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

// ParseAltitude reads an altitude by name ("" is auto).
func ParseAltitude(s string) (Altitude, error) {
	switch a := Altitude(s); a {
	case "", AltitudeAuto:
		return AltitudeAuto, nil
	case AltitudeMemories, AltitudeSummaries:
		return a, nil
	}
	return "", &InputError{Field: "altitude", Problem: fmt.Sprintf("%q: want auto, memories or summaries", s)}
}

// Climb is a summary packed in place of the memories it covers.
type Climb struct {
	Summary  int64   `json:"summary"`  // the summary's memory id
	Replaced []int64 `json:"replaced"` // the covered memories among the candidates it replaced
}

// GraphContextShare is the part of the budget the graph context may take from the items
// when what is left after them does not hold it.
const GraphContextShare = 5 // one fifth

// altitudeResult is what the altitude step decided: the units to walk, the summaries that
// climbed, and the candidates it left out (memory id -> why).
type altitudeResult struct {
	units  []unit
	climbs []Climb
	left   map[int64]Decision
}

// isSummary reports whether a member is a summary that covers some memory.
func isSummary(m ranked) bool { return m.Kind == "summary" && len(m.Covers) > 0 }

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
func applyAltitude(mode Altitude, us []unit, walk func([]unit) budget.Pack[unit]) altitudeResult {
	res := altitudeResult{left: map[int64]Decision{}}
	var summaries []int // indexes of units whose hit is a covering summary
	for i, u := range us {
		if isSummary(u.members[u.hit]) {
			summaries = append(summaries, i)
		}
	}
	if len(summaries) == 0 {
		res.units = us
		return res
	}
	base := make([]unit, 0, len(us))
	at := map[int64]int{} // memory id -> index in us of the unit that holds it
	for i, u := range us {
		if isSummary(u.members[u.hit]) {
			continue
		}
		base = append(base, u)
		for _, m := range u.members {
			at[m.ID] = i
		}
	}
	if mode == AltitudeMemories {
		for _, i := range summaries {
			res.left[us[i].members[us[i].hit].ID] = AltitudeLeft
		}
		res.units = base
		return res
	}
	packed := map[int64]bool{}
	if mode == AltitudeAuto {
		for _, p := range walk(base).Items {
			for _, m := range p.Item.members {
				packed[m.ID] = true
			}
		}
	}
	gone := map[int64]bool{} // memories left out
	place := map[int]int{}   // unit index -> the index it is walked at
	after := map[int]bool{}  // auto: walked after every memory
	for _, i := range summaries {
		s := us[i].members[us[i].hit]
		var covered []int64
		first := i
		for _, id := range s.Covers {
			if j, ok := at[id]; ok {
				covered = append(covered, id)
				first = min(first, j)
			}
		}
		if len(covered) == 0 {
			after[i] = mode == AltitudeAuto
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
			gone[s.ID] = true
			res.left[s.ID] = Descended
			continue
		}
		after[i] = mode == AltitudeAuto
		if mode == AltitudeSummaries {
			place[i] = first
			us[i].rank = us[first].rank
		}
		slices.Sort(covered)
		res.climbs = append(res.climbs, Climb{Summary: s.ID, Replaced: covered})
		for _, id := range covered {
			gone[id] = true
			if _, ok := res.left[id]; !ok {
				res.left[id] = Replaced
			}
		}
	}
	// At the summaries altitude a climbing summary is walked just before the unit whose
	// place it takes: key 2*place, where every other unit has 2*index+1. At auto, summaries
	// are walked after every other unit.
	type placed struct {
		key int
		u   unit
	}
	var order []placed
	for i, u := range us {
		if gone[u.members[u.hit].ID] {
			continue
		}
		kept := unit{rank: u.rank}
		for j, m := range u.members {
			if gone[m.ID] {
				continue
			}
			if j == u.hit {
				kept.hit = len(kept.members)
			}
			kept.members = append(kept.members, m)
		}
		key := 2*i + 1
		if p, ok := place[i]; ok && p < i {
			key = 2 * p
		}
		if after[i] {
			key += 2 * len(us)
		}
		order = append(order, placed{key: key, u: kept})
	}
	slices.SortStableFunc(order, func(a, b placed) int { return cmp.Compare(a.key, b.key) })
	res.units = make([]unit, len(order))
	for i, p := range order {
		res.units[i] = p.u
	}
	return res
}

// Decisions of the altitude step (Trace).
const (
	// AltitudeLeft: a summary left out of a memories-altitude pack.
	AltitudeLeft Decision = "altitude_memories"
	// Descended: a summary left out because memories it covers that made the cut fit.
	Descended Decision = "descended"
	// Replaced: a memory left out for a summary that covers it.
	Replaced Decision = "replaced_by_summary"
)

// graphContext gathers the packed items' graph context: each relation once, most graph mass
// first, then by relation id.
func graphContext(items []budget.Packed[unit]) []statement.Triplet {
	seen := map[int64]bool{}
	var out []statement.Triplet
	for _, it := range items {
		for _, m := range it.Item.members {
			for _, t := range m.GraphContext {
				if !seen[t.Relation] {
					seen[t.Relation] = true
					out = append(out, t)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b statement.Triplet) int {
		return cmp.Or(cmp.Compare(b.Mass, a.Mass), cmp.Compare(a.Relation, b.Relation))
	})
	return out
}

// tripletText is how a triplet reads in a pack, and what its tokens are counted on.
func tripletText(t statement.Triplet) string {
	return t.Subject + " " + t.Predicate + " " + t.Object
}

// fitTriplets keeps, in order, the triplets that fit in left tokens (each that fits is
// taken, as the walk does), and returns them with the tokens they cost.
func fitTriplets(ts []statement.Triplet, left int, c budget.TokenCounter) ([]statement.Triplet, int) {
	var out []statement.Triplet
	used := 0
	for _, t := range ts {
		if n := c.Count(tripletText(t)); n <= left-used {
			out = append(out, t)
			used += n
		}
	}
	return out, used
}

// tripletsCost is what all of ts would cost.
func tripletsCost(ts []statement.Triplet, c budget.TokenCounter) int {
	n := 0
	for _, t := range ts {
		n += c.Count(tripletText(t))
	}
	return n
}

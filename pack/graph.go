package pack

import (
	"cmp"
	"slices"

	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/statement"
)

// GraphContextShare is the part of the budget the graph context may take from the items
// when what is left after them does not hold it.
const GraphContextShare = 5 // one fifth

// graphContext gathers the packed items' graph context: each relation once, most graph mass
// first, then by relation id.
func graphContext(items []budget.Packed[Unit]) []statement.Triplet {
	seen := map[int64]bool{}
	out := []statement.Triplet{}
	for _, it := range items {
		for _, m := range it.Item.Members {
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
// taken, as the walk does), and returns them with the tokens they cost. The list is empty,
// not nil, when none fits.
func fitTriplets(ts []statement.Triplet, left int, c budget.TokenCounter) ([]statement.Triplet, int) {
	out := []statement.Triplet{}
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

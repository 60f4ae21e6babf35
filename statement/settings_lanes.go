package statement

// Lanes is the plan of the lanes whose weight is above 0: a lane weighted 0 adds nothing to
// the fusion, so a recall does not run it (unless it is all a plan asks for: Narrow).
func (s Settings) Lanes() Plan {
	var p Plan
	for l, w := range s.Weights {
		if w > 0 {
			p |= Only(Lane(l))
		}
	}
	return p
}

// Narrow is the plan a recall asked for plan runs: its lanes of weight above 0, or plan
// itself when it has none (one lane studied alone at weight 0 ranks by its learned order).
func (s Settings) Narrow(plan Plan) Plan {
	if p := plan & s.Lanes(); p != 0 {
		return p
	}
	return plan
}

// Depth is how many rows lane l returns at most.
func (s Settings) Depth(l Lane) int {
	for _, tu := range tunables() {
		if tu.name == lanes[l].depth {
			return int(tu.number(&s))
		}
	}
	panic("statement: lane " + l.String() + " names no depth setting")
}

// TraceK is how many fused rows a trace reads so that every lane's candidates appear: the
// fused order is the same (ORDER BY fused, id), so the first K rows are what a recall sees.
func (s Settings) TraceK(p Plan) int {
	n := 0
	for _, l := range p.Lanes() {
		n += s.Depth(l)
	}
	return max(s.K, n)
}

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

// For is p less the lanes that cannot find anything for q, unless that leaves none: the
// temporal lane without a window's start (each of its branches reads memories from the
// window: a question that names no time) returns no row, and left in the statement it cost
// a LoCoMo recall about 0.4 ms of executor start (the server log's bind, 1.18 against 0.75
// ms) besides its steps. Its ranks and scores are 0 either way, so the fused order, the
// learned order's features and the pack are the same.
func (p Plan) For(q Query) Plan {
	if q.WindowStart.IsZero() {
		if n := p &^ Only(Temporal); n != 0 {
			return n
		}
	}
	return p
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

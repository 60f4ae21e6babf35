package statement

import "strings"

// Plan is the set of lanes a statement runs. Production runs Maximal less the lanes of
// weight 0 (Settings.Narrow); narrower plans exist for the eval plan study.
type Plan uint8

// Maximal runs every lane.
const Maximal Plan = 1<<NumLanes - 1

// Only is the plan that runs lane l alone.
func Only(l Lane) Plan { return Plan(1) << l }

// Without is the maximal plan minus lane l.
func Without(l Lane) Plan { return Maximal &^ Only(l) }

// Has reports whether the plan runs lane l.
func (p Plan) Has(l Lane) bool { return p&Only(l) != 0 }

// Lanes lists the plan's lanes in output order.
func (p Plan) Lanes() []Lane {
	var out []Lane
	for l := range Lane(NumLanes) {
		if p.Has(l) {
			out = append(out, l)
		}
	}
	return out
}

// String names the plan: "maximal", a lane name ("bm25"), "-lane" (maximal minus a lane), or
// lanes joined by "+".
func (p Plan) String() string {
	switch p {
	case Maximal:
		return "maximal"
	case 0:
		return "empty"
	}
	for l := range Lane(NumLanes) {
		if p == Without(l) {
			return "-" + l.String()
		}
	}
	names := make([]string, 0, NumLanes)
	for _, l := range p.Lanes() {
		names = append(names, l.String())
	}
	return strings.Join(names, "+")
}

// ParsePlan reads a plan name as String writes it.
func ParsePlan(s string) (Plan, error) {
	switch {
	case s == "maximal":
		return Maximal, nil
	case strings.HasPrefix(s, "-"):
		l, err := ParseLane(s[1:])
		if err != nil {
			return 0, err
		}
		return Without(l), nil
	}
	var p Plan
	for _, part := range strings.Split(s, "+") {
		l, err := ParseLane(part)
		if err != nil {
			return 0, err
		}
		p |= Only(l)
	}
	return p, nil
}

// StudyPlans are the arms of the plan study: maximal, each lane alone, maximal minus each lane.
func StudyPlans() []Plan {
	out := []Plan{Maximal}
	for l := range Lane(NumLanes) {
		out = append(out, Only(l))
	}
	for l := range Lane(NumLanes) {
		out = append(out, Without(l))
	}
	return out
}

package eval

import (
	"fmt"
	"slices"

	"github.com/recall-engine/recall/statement"
)

// Param is a setting a tune varies over a grid of values.
type Param struct {
	Name string
	Grid []float64
	Get  func(*statement.Settings) float64
	Set  func(*statement.Settings, float64)
}

// FusionParams are the fusion's settings: the RRF constant and each lane's weight.
func FusionParams() []Param {
	out := []Param{{
		Name: "rrf_k", Grid: []float64{2, 5, 10, 20, 30, 45, 60, 90},
		Get: func(s *statement.Settings) float64 { return s.RRFK },
		Set: func(s *statement.Settings, v float64) { s.RRFK = v },
	}}
	for _, l := range statement.Lanes() {
		out = append(out, Param{
			Name: "weights." + l.String(), Grid: []float64{0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2},
			Get: func(s *statement.Settings) float64 { return s.Weights[l] },
			Set: func(s *statement.Settings, v float64) { s.Weights[l] = v },
		})
	}
	return out
}

// Step is one change coordinate ascent kept: a parameter moved and the score it reached.
type Step struct {
	Round int     `json:"round"`
	Param string  `json:"param"`
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Score float64 `json:"score"`
}

func (s Step) String() string {
	return fmt.Sprintf("round %d: %s %g -> %g: %.4f", s.Round, s.Param, s.From, s.To, s.Score)
}

// CoordinateAscent maximizes objective over params: in each round, each parameter in turn
// takes the grid value (or its current value) that scores best with the others held, a tie
// keeping the current value; it stops after a round that changed nothing, or after rounds.
// Deterministic for a deterministic objective. It returns the best settings, their score and
// the steps it kept.
func CoordinateAscent(start statement.Settings, params []Param, objective func(statement.Settings) float64, rounds int) (statement.Settings, float64, []Step) {
	best := start
	score := objective(best)
	var steps []Step
	for round := 1; round <= rounds; round++ {
		changed := false
		for _, p := range params {
			cur := p.Get(&best)
			values := p.Grid
			if !slices.Contains(values, cur) {
				values = append(slices.Clone(values), cur)
			}
			bestV, bestScore := cur, score
			for _, v := range values {
				if v == cur {
					continue
				}
				s := best
				p.Set(&s, v)
				if s.Validate() != nil {
					continue
				}
				if got := objective(s); got > bestScore {
					bestV, bestScore = v, got
				}
			}
			if bestV != cur {
				p.Set(&best, bestV)
				steps = append(steps, Step{Round: round, Param: p.Name, From: cur, To: bestV, Score: bestScore})
				score, changed = bestScore, true
			}
		}
		if !changed {
			break
		}
	}
	return best, score, steps
}

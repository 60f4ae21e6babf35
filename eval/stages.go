package eval

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// StageNames are the stages of one recall a study times, in the order they run (pack's
// Timings): embed and entities run together; rest is the total less the others (input
// checks, the statement's choice, the pack's normalisation); total is the whole recall.
var StageNames = []string{"embed", "entities", "statement", "order", "rerank", "pack", "rest", "total"}

// Stages is one recall's time by stage (StageNames).
type Stages struct {
	Embed, Entities, Statement, Order, Rerank, Pack, Total time.Duration
}

// PlanStages is an arm's median time by stage over a study's ranking recalls, in ms.
type PlanStages struct {
	Plan  string             `json:"plan"`
	P50ms map[string]float64 `json:"p50_ms"`
}

// StageLog collects the stages of every recall of a study by arm; safe for concurrent use.
// The caller names the arm of a recall at a pack budget apart from its ranking's (aizk-eval:
// "plan @N"), so each arm counts each query once.
type StageLog struct {
	mu    sync.Mutex
	order []string
	by    map[string]map[string][]float64
}

// Add logs one recall of plan.
func (l *StageLog) Add(plan string, s Stages) {
	rest := s.Total - max(s.Embed, s.Entities) - s.Statement - s.Order - s.Rerank - s.Pack
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	vals := []float64{ms(s.Embed), ms(s.Entities), ms(s.Statement), ms(s.Order), ms(s.Rerank), ms(s.Pack), ms(max(rest, 0)), ms(s.Total)}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string]map[string][]float64{}
	}
	m, ok := l.by[plan]
	if !ok {
		m = map[string][]float64{}
		l.by[plan] = m
		l.order = append(l.order, plan)
	}
	for i, n := range StageNames {
		m[n] = append(m[n], vals[i])
	}
}

// Medians returns each arm's median by stage, in the order the arms were first logged.
func (l *StageLog) Medians() []PlanStages {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]PlanStages, 0, len(l.order))
	for _, p := range l.order {
		ps := PlanStages{Plan: p, P50ms: map[string]float64{}}
		for n, v := range l.by[p] {
			ps.P50ms[n] = median(v)
		}
		out = append(out, ps)
	}
	return out
}

// median of v (the mean of the middle two for an even count); 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// stagesTable writes the arms' median time by stage, when the study logged them.
func (r *Report) stagesTable(b *strings.Builder) {
	if len(r.Stages) == 0 {
		return
	}
	b.WriteString("\nWhere the time goes: each arm's median by stage over its rankings (the recalls without\n" +
		"a pack budget) and, as \"plan @N\", over its recalls at a pack budget of N tokens, in ms.\n" +
		"The medians of the stages do not add up to the total's.\n\n")
	row(b, append([]string{"plan"}, StageNames...))
	row(b, dashes(len(StageNames)+1))
	for _, p := range r.Stages {
		cells := []string{p.Plan}
		for _, n := range StageNames {
			cells = append(cells, fmt.Sprintf("%.2f", p.P50ms[n]))
		}
		row(b, cells)
	}
}

package eval

import (
	"fmt"
	"math"
	"slices"
)

// LongMemEval's retrieval measures (Wu et al., ICLR 2025; its src/retrieval/eval_utils.py),
// so that figures on its data sit in its tables: recall_any@k (some evidence in the first k),
// recall_all@k (all of it), and ndcg_any@k (nDCG with every judged item relevant, grade 1),
// over turns and over sessions. The session measures read the turn ranking as the paper
// does: each turn stands for its session, k grows until the first k turns name k sessions
// (or the ranking ends), the evidence is the sessions of the judged turns, and a turn counts
// as relevant in the nDCG when its session is evidence, the ideal order being every turn of
// the evidence sessions (so the session nDCG rewards several turns of one session at the top).
var SessionMetrics = func() []Metric {
	var out []Metric
	turn := func(name string, k int, fn func([]string, map[string]bool, int) float64) Metric {
		return Metric{Name: fmt.Sprintf("turn_%s@%d", name, k), Fn: func(r []string, q Qrels) float64 { return fn(r, relevant(q), k) }}
	}
	out = append(out,
		turn("recall_any", 5, recallAny), turn("recall_all", 5, recallAll),
		turn("recall_any", 10, recallAny), turn("recall_all", 10, recallAll), turn("ndcg_any", 10, ndcgAny))
	for _, k := range []int{5, 10} {
		out = append(out,
			Metric{Name: fmt.Sprintf("session_recall_any@%d", k)},
			Metric{Name: fmt.Sprintf("session_recall_all@%d", k)},
			Metric{Name: fmt.Sprintf("session_ndcg_any@%d", k)})
	}
	return out
}()

// Sessions says which session each document is in, for the session measures: document id ->
// session (a document without one is a session of its own).
type Sessions map[string]string

// of is the session of document id.
func (s Sessions) of(id string) string {
	if v, ok := s[id]; ok {
		return v
	}
	return id
}

// Score returns SessionMetrics of ranked against rel.
func (s Sessions) Score(ranked []string, rel Qrels) map[string]float64 {
	out := map[string]float64{}
	for _, m := range SessionMetrics {
		if m.Fn != nil {
			out[m.Name] = m.Fn(ranked, rel)
		}
	}
	rs := relevant(rel)
	evidence := map[string]bool{}
	for id := range rs {
		evidence[s.of(id)] = true
	}
	turnsIn := 0 // every turn of the evidence sessions: the ideal order's relevant turns
	for _, sess := range s {
		if evidence[sess] {
			turnsIn++
		}
	}
	for id := range rs {
		if _, ok := s[id]; !ok {
			turnsIn++ // a judged document without a session is its own
		}
	}
	bySession := make([]string, len(ranked))
	for i, id := range ranked {
		bySession[i] = s.of(id)
	}
	for _, k := range []int{5, 10} {
		// The first k' turns that name k sessions, or all of them.
		eff, names := 0, map[string]bool{}
		for eff < len(bySession) && len(names) < k {
			names[bySession[eff]] = true
			eff++
		}
		out[fmt.Sprintf("session_recall_any@%d", k)] = recallAny(bySession, evidence, eff)
		out[fmt.Sprintf("session_recall_all@%d", k)] = recallAll(bySession, evidence, eff)
		var dcg, ideal float64
		for i, sess := range bySession[:eff] {
			if evidence[sess] {
				dcg += 1 / math.Log2(float64(i+2))
			}
		}
		for i := range min(eff, turnsIn) {
			ideal += 1 / math.Log2(float64(i+2))
		}
		out[fmt.Sprintf("session_ndcg_any@%d", k)] = 0
		if ideal > 0 {
			out[fmt.Sprintf("session_ndcg_any@%d", k)] = dcg / ideal
		}
	}
	return out
}

// relevant are the documents rel judges relevant.
func relevant(rel Qrels) map[string]bool {
	out := map[string]bool{}
	for id, g := range rel {
		if g > 0 {
			out[id] = true
		}
	}
	return out
}

// recallAny is 1 when one of the first k of ranked is relevant.
func recallAny(ranked []string, rel map[string]bool, k int) float64 {
	for _, id := range ranked[:min(k, len(ranked))] {
		if rel[id] {
			return 1
		}
	}
	return 0
}

// recallAll is 1 when every relevant item is among the first k of ranked (0 when none is
// judged relevant).
func recallAll(ranked []string, rel map[string]bool, k int) float64 {
	if len(rel) == 0 {
		return 0
	}
	in := map[string]bool{}
	for _, id := range ranked[:min(k, len(ranked))] {
		if rel[id] {
			in[id] = true
		}
	}
	if len(in) == len(rel) {
		return 1
	}
	return 0
}

// ndcgAny is nDCG@k with every relevant item of grade 1.
func ndcgAny(ranked []string, rel map[string]bool, k int) float64 {
	var dcg, ideal float64
	for i, id := range ranked[:min(k, len(ranked))] {
		if rel[id] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := range min(k, len(rel)) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// IsSessionMetric reports whether name is one of SessionMetrics.
func IsSessionMetric(name string) bool {
	return slices.ContainsFunc(SessionMetrics, func(m Metric) bool { return m.Name == name })
}

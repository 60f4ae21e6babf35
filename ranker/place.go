package ranker

import (
	"math"
	"strings"

	"github.com/recall-engine/recall/statement"
)

// neighbours writes the neighbour features: the strongest neighbour's lexical rank, whether
// the place before asks a question, the strongest lexical rank of the places two away said by
// the same speaker (among the head's candidates), how much of what it holds of the question
// another speaker said just before it (it echoes) or says again just after it (it was
// echoed), and its length against theirs. The places two away are for the answer a speaker
// gives after the other's reply: "The sky was full of stars" (found), "Wow!", then "I felt
// tiny and in awe" (what was asked for, sharing no word with the question). The echo is for a
// reply that repeats the words of the turn it answers, as an assistant repeats the user's at
// length: there the turn that said it first holds the fact. opener marks the first place of a
// source, and src_best is the strongest of the rest of its source in the head, any distance.
func (ex *extractor) neighbours(x []float64, i int) {
	c := ex.head[i]
	if c.Source == nil || c.Position == 0 {
		return
	}
	if c.Position == 1 {
		x[index["opener"]] = 1
	}
	if top := ex.srcTop[c.Source.ID]; top[0] != i && top[0] >= 0 {
		x[index["src_best"]] = ex.lexical(top[0])
	} else if top[1] >= 0 {
		x[index["src_best"]] = ex.lexical(top[1])
	}
	for _, d := range []int{-2, -1, 1, 2} {
		j, ok := ex.at[place{c.Source.ID, c.Position + d}]
		switch {
		case !ok:
		case d == -1 || d == 1:
			x[index["nb_best"]] = max(x[index["nb_best"]], ex.lexical(j))
			if d == -1 && strings.Contains(ex.head[j].Text, "?") {
				x[index["nb_question"]] = 1
			}
			if ex.head[j].Speaker != c.Speaker {
				echo, longer := "echo_prev", "longer_prev"
				if d == 1 {
					echo, longer = "echoed_next", "longer_next"
				}
				x[index[echo]] = cover(ex.terms[i], ex.terms[j]) // the share of its question words j holds too
				x[index[longer]] = math.Log(1+float64(ex.fields[i])) - math.Log(1+float64(ex.fields[j]))
			}
		case ex.head[j].Speaker == c.Speaker:
			x[index["same_best"]] = max(x[index["same_best"]], ex.lexical(j))
		}
	}
}

// time writes where the candidate's time falls among the head's times.
func (ex *extractor) time(x []float64, c statement.Candidate) {
	if c.OccurredStart == nil || !ex.newest.After(ex.oldest) {
		return
	}
	x[index["newer"]] = float64(c.OccurredStart.Sub(ex.oldest)) / float64(ex.newest.Sub(ex.oldest))
}

// lexical is 1 / (rrf_k + head[j]'s best bm25 or context rank), 0 when neither found it.
func (ex *extractor) lexical(j int) float64 {
	var v float64
	for _, l := range []statement.Lane{statement.BM25, statement.Context} {
		if r := ex.head[j].Lanes[l].Rank; r > 0 {
			v = max(v, 1/(ex.rrfK+float64(r)))
		}
	}
	return v
}

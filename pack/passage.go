package pack

import (
	"slices"

	"github.com/recall-engine/recall/budget"
)

// Passages says how a pack gives a long memory that the bm25 lane scored by one of its
// passages (statement.Candidate.Passage: a memory of more than recall.passage_words() words,
// read as passages cut at sentence ends): whole, or the passage that matched.
type Passages string

// Passage modes. The zero value means PassagesAuto.
const (
	// PassagesAuto gives the passage when the whole memory would cost more than
	// PassageGain times the passage's tokens, or when the memory's unit does not fit what the
	// budget has left and would with the passage; the whole memory otherwise.
	PassagesAuto Passages = "auto"
	// PassagesWhole gives whole memories (cut to the budget only when nothing else fits).
	PassagesWhole Passages = "whole"
	// PassagesPassage gives the passage of every memory that has one.
	PassagesPassage Passages = "passage"
)

// PassageGain is how many times a passage's tokens the whole memory must cost for
// PassagesAuto to give the passage instead.
const PassageGain = 2

// asPassage is c with its text cut to its matched passage, which Part then names; c as it
// is when it has none (or the bounds do not fit its text: a memory rewritten since it was
// read cannot be, the statement reads both in one snapshot).
func asPassage(c Ranked) Ranked {
	p := c.Passage
	if p == nil || c.Part != nil {
		return c
	}
	text, ok := runeSpan(c.Text, p.Start, p.End)
	if !ok {
		return c
	}
	c.Text, c.Part = text, p
	return c
}

// runeSpan is s's runes start to end (offsets in runes, as the statement gives a passage's
// bounds), read in place: false when they are not a non-empty span of s.
func runeSpan(s string, start, end int) (string, bool) {
	if start < 0 || start >= end {
		return "", false
	}
	i, from := 0, -1
	for b := range s {
		if i == start {
			from = b
		}
		if i == end {
			return s[from:b], true
		}
		i++
	}
	if i == end && from >= 0 {
		return s[from:], true
	}
	return "", false
}

// choosePassages applies mode to the units' members before they are walked: passage gives
// every passage, auto those that gain more than PassageGain. It runs after Units, so a
// restatement is found by the whole memory's words, not by a passage's.
func choosePassages(us []Unit, mode Passages, tokens budget.TokenCounter) []Unit {
	if mode == PassagesWhole {
		return us
	}
	out := make([]Unit, len(us))
	for i, u := range us {
		members := u.Members
		for j, m := range u.Members {
			p := asPassage(m)
			if p.Part == nil || mode != PassagesPassage && tokens.Count(m.Text) <= PassageGain*tokens.Count(p.Text) {
				continue
			}
			if &members[0] == &u.Members[0] {
				members = slices.Clone(u.Members) // the caller's units stay as they were
			}
			members[j] = p
		}
		out[i] = u
		out[i].Members = members
	}
	return out
}

// passageOf is the walk's smaller form of a unit for mode (nil for whole): its hit's
// matched passage, when it has one the unit does not give already.
func passageOf(mode Passages) func(Unit) (Unit, bool) {
	if mode == PassagesWhole {
		return nil
	}
	return func(u Unit) (Unit, bool) {
		h := u.Members[u.Hit]
		p := asPassage(h)
		if p.Part == nil || h.Part != nil {
			return u, false
		}
		u.Members = slices.Clone(u.Members)
		u.Members[u.Hit] = p
		return u, true
	}
}

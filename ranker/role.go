package ranker

import (
	"strings"
)

// A speaker's role, read from what the head's candidates say rather than from its name: in a
// user's chat with an assistant, the user speaks of their own life ("my Sony camera", "I've
// been using basil") and the assistant of the user's ("your camera"), so the turns that state
// a fact about the asker are the user's. Among people talking with each other, each speaks of
// themself and self_talk is about even. A question that asks what "you" said ("the dish you
// recommended", "can you remind me") asks for the other side's turns.

// selfTalk is each speaker's share of selfWord words over the words of their candidates,
// over the largest share of any speaker (speakers who say none: 0). The speakerless key "" is
// left out.
func selfTalk(self, words map[string]float64) map[string]float64 {
	out := map[string]float64{}
	top := 0.0
	for sp, w := range words {
		if sp == "" || w == 0 {
			continue
		}
		out[sp] = self[sp] / w
		top = max(top, out[sp])
	}
	for sp := range out {
		if top > 0 {
			out[sp] /= top
		}
	}
	return out
}

// saidVerbs are the verbs of a question that asks what "you" said or did besides those in
// -ed: "you told me", "the move you made".
var saidVerbs = map[string]bool{"told": true, "said": true, "gave": true, "made": true, "wrote": true,
	"showed": true, "shown": true, "sent": true, "did": true, "taught": true, "found": true, "chose": true, "came": true}

// asksYou reports whether the question asks what the one it addresses said or did before:
// "did you", "you" followed within two words by a past verb (told, said, an -ed word other
// than "remembered": asking whether one remembers asks for what was said to one), or "remind
// me".
func asksYou(question string) bool {
	w := lowerWords(question)
	for i, s := range w {
		if s == "remind" && i+1 < len(w) && w[i+1] == "me" {
			return true
		}
		if s != "you" {
			continue
		}
		if i > 0 && w[i-1] == "did" {
			return true
		}
		for _, v := range w[i+1 : min(len(w), i+3)] {
			if saidVerbs[v] || strings.HasSuffix(v, "ed") && v != "remembered" && v != "need" {
				return true
			}
		}
	}
	return false
}

// Package ranker orders the recall statement's candidates by a learned model over features of
// each candidate: its rank in every lane, how strongly its lexical lanes found it relative to
// the best, whether the question names its speaker, how much of the question's words it
// holds, whether it is a question, its length, how strongly its neighbours in its source were
// found, how strongly its own speaker's places two before and after it were (in a
// dialogue: what the same speaker said just before or next, past the other's reply),
// whether it opens its source, how strongly the rest of its source was found, and how much
// its speaker speaks of themself (a user of their life, against an assistant; role.go). Every
// feature is defined for every memory, whatever its kind: a memory without a speaker or a
// place has those features at zero, as a memory a lane did not find has that lane's. A turn
// of a conversation and any other memory have their features in two blocks of their own
// (Features), weighed apart.
//
// A Model is a small versioned JSON file: weights by feature name and, optionally, boosted
// regression trees over the same features added to the weighted sum. The engine's default is
// embedded (DefaultModel), fitted by aizk-eval order on the development data: the weights by
// pairwise logistic regression (Fit), then trees on top by LambdaMART (FitTrees). The package
// reads no database and calls no model.
package ranker

import (
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/recall-engine/recall/statement"
)

// Features are the model's inputs, in the order Extract writes them: the base features twice.
// A turn of a conversation (a memory with a place in its source) has its values in the first
// block and zeros in the second; any other memory (a note, a document, a fact) has them in the
// second block, named "doc_" and the base name, and zeros in the first. So a turn and a
// document are ordered by weights fitted on their own kind: what is learned on conversations
// (where the turn after a matching one holds the answer, where a user's opener states the need)
// does not move documents, and a fit without any document leaves them the prior's order.
var Features = func() []string {
	out := slices.Clone(baseFeatures)
	for _, f := range baseFeatures {
		out = append(out, docPrefix+f)
	}
	return out
}()

// docPrefix names the second block of Features: a memory without a place in a source.
const docPrefix = "doc_"

// numBase is the length of one block of Features.
var numBase = len(baseFeatures)

// baseFeatures are one memory's features. Lane features come first, one per lane in lane
// order: 1 / (rrf_k + rank), 0 when the lane did not find the candidate.
var baseFeatures = func() []string {
	var out []string
	for _, l := range statement.Lanes() {
		out = append(out, "lane_"+l.String())
	}
	return append(out,
		"best",           // 1 / (rrf_k + its best rank in any lane)
		"lanes",          // how many lanes found it
		"bm25_rel",       // its bm25 score over the best bm25 score among the candidates
		"context_rel",    // the same for the context lane
		"vector_sim",     // its cosine similarity with the question (0 when the vector lane did not find it)
		"speaker_named",  // 1 when the question names its speaker
		"other_named",    // 1 when it has a speaker, the question names a speaker of the candidates, and not this one
		"cover",          // the share of the question's words its text holds
		"question",       // 1 when its text asks a question
		"log_len",        // ln(1 + its words)
		"nb_best",        // its strongest neighbour: 1 / (rrf_k + that one's best bm25 or context rank)
		"nb_question",    // 1 when the place before it, among the candidates, asks a question
		"cover_idf",      // cover, each word weighted by its rarity among the candidates: ln(1 + K / (1 + candidates holding it))
		"title_cover",    // the share of the question's words its source's title holds (0 without a title)
		"pairs",          // the share of the question's adjacent word pairs it holds adjacent, in order
		"same_best",      // its speaker's place two before or after it (same speaker, or both without one): 1 / (rrf_k + that one's best bm25 or context rank)
		"echo_prev",      // the share of the question's words it holds that the place just before it, said by someone else, held first
		"echoed_next",    // the share of the question's words it holds that the place just after it, said by someone else, says again
		"newer",          // where its time falls among the head's: 0 the oldest, 1 the newest (0 without a time, or when all share one)
		"longer_prev",    // ln(1 + its words) - ln(1 + the words of the place just before it, said by someone else)
		"longer_next",    // the same against the place just after it, said by someone else
		"opener",         // 1 when it is the first place of its source: what opens a conversation (a greeting, or the need a user brings an assistant)
		"src_best",       // its source's strongest other candidate in the head: 1 / (rrf_k + that one's best bm25 or context rank)
		"self_talk",      // how much its speaker speaks of themself (I, my) in the head's candidates, over the most any speaker there does (0 without a speaker)
		"self_talk_you",  // self_talk when the question asks what "you" said ("you mentioned", "remind me"), 0 otherwise
		"quantity",       // 1 when its text states a quantity (a digit, a number word but "one")
		"quantity_count", // quantity when the question asks for a count or an amount ("how many", "in total"), 0 otherwise
	)
}()

// NumFeatures is len(Features).
var NumFeatures = len(Features)

// index of each feature by name.
var index = func() map[string]int {
	m := map[string]int{}
	for i, f := range Features {
		m[f] = i
	}
	return m
}()

// Extract computes the features of every candidate of head (the statement's first K rows, in
// fused order) for the question: row i is head[i]'s, in Features order. rrfK is the fusion's
// constant (Settings.RRFK). The neighbour features read only the head: a memory's neighbours
// are the candidates of its source one place before and after it.
func Extract(question string, head []statement.Candidate, rrfK float64) [][]float64 {
	ex := newExtractor(question, head, rrfK)
	out := make([][]float64, len(head))
	for i, c := range head {
		x := make([]float64, NumFeatures)
		ex.lanes(x, c)
		ex.words(x, i)
		ex.neighbours(x, i)
		ex.time(x, c)
		if c.Source == nil || c.Position <= 0 { // not a turn: its values go to the doc_ block
			copy(x[numBase:], x[:numBase])
			clear(x[:numBase])
		}
		out[i] = x
	}
	return out
}

// place is a memory's place in its source.
type place struct {
	source int64
	pos    int
}

// extractor holds what every candidate's features are measured against: the question's
// words, the head's best lexical scores, its places, and its candidates' terms.
type extractor struct {
	head                []statement.Candidate
	rrfK                float64
	qTerms, qWords      map[string]bool
	qPairs              map[pair]bool
	qList               []string // qTerms in a fixed order, so that sums are the same on every run
	idf                 map[string]float64
	idfSum              float64
	terms               []map[string]bool // the question's terms each candidate holds
	pairsHeld, fields   []int             // each candidate's pairs of the question, and its fields
	maxBM25, maxContext float64
	at                  map[place]int
	srcTop              map[int64][2]int   // per source, its two strongest candidates by lexical (-1: none)
	selfTalk            map[string]float64 // per speaker, self_talk
	asksYou             bool               // the question asks what "you" said
	asksCount           bool               // the question asks for a count or an amount
	named               bool               // the question names a speaker of the head
	oldest, newest      time.Time          // the head's times (zero without any)
}

func newExtractor(question string, head []statement.Candidate, rrfK float64) *extractor {
	ex := &extractor{head: head, rrfK: rrfK, qTerms: Terms(question), qWords: words(question), qPairs: pairs(question),
		idf: map[string]float64{}, terms: make([]map[string]bool, len(head)), at: map[place]int{}, srcTop: map[int64][2]int{},
		pairsHeld: make([]int, len(head)), fields: make([]int, len(head))}
	df := map[string]int{}
	selfWords, speakerWords := map[string]float64{}, map[string]float64{}
	reader := newHeldReader(ex.qTerms, ex.qPairs)
	for i, c := range head {
		r := reader.held(c.Text)
		ex.terms[i], ex.pairsHeld[i], ex.fields[i] = r.terms, r.pairs, r.fields
		selfWords[c.Speaker] += float64(r.self)
		speakerWords[c.Speaker] += float64(r.fields)
		for t := range ex.terms[i] {
			df[t]++
		}
		ex.maxBM25 = max(ex.maxBM25, c.Lanes[statement.BM25].Score)
		ex.maxContext = max(ex.maxContext, c.Lanes[statement.Context].Score)
		if c.Source != nil && c.Position > 0 {
			ex.at[place{c.Source.ID, c.Position}] = i
		}
		ex.named = ex.named || c.Speaker != "" && speakerNamed(ex.qWords, c.Speaker)
		if t := c.OccurredStart; t != nil {
			if ex.oldest.IsZero() || t.Before(ex.oldest) {
				ex.oldest = *t
			}
			if t.After(ex.newest) {
				ex.newest = *t
			}
		}
	}
	for i, c := range head {
		if c.Source == nil {
			continue
		}
		top, ok := ex.srcTop[c.Source.ID]
		if !ok {
			top = [2]int{-1, -1}
		}
		switch v := ex.lexical(i); {
		case top[0] < 0 || v > ex.lexical(top[0]):
			top = [2]int{i, top[0]}
		case top[1] < 0 || v > ex.lexical(top[1]):
			top[1] = i
		}
		ex.srcTop[c.Source.ID] = top
	}
	ex.selfTalk, ex.asksYou, ex.asksCount = selfTalk(selfWords, speakerWords), asksYou(question), asksCount(question)
	ex.qList = slices.Sorted(maps.Keys(ex.qTerms))
	for _, t := range ex.qList {
		ex.idf[t] = math.Log(1 + float64(len(head))/float64(1+df[t]))
		ex.idfSum += ex.idf[t]
	}
	return ex
}

// lanes writes the lane features: each lane's 1 / (rrf_k + rank), the best of them, how many
// lanes, the lexical scores relative to the best, the vector similarity.
func (ex *extractor) lanes(x []float64, c statement.Candidate) {
	best, lanes := 0, 0
	for l := range statement.Lane(statement.NumLanes) {
		if r := c.Lanes[l].Rank; r > 0 {
			x[l] = 1 / (ex.rrfK + float64(r))
			lanes++
			if best == 0 || r < best {
				best = r
			}
		}
	}
	if best > 0 {
		x[index["best"]] = 1 / (ex.rrfK + float64(best))
	}
	x[index["lanes"]] = float64(lanes)
	if ex.maxBM25 > 0 {
		x[index["bm25_rel"]] = c.Lanes[statement.BM25].Score / ex.maxBM25
	}
	if ex.maxContext > 0 {
		x[index["context_rel"]] = c.Lanes[statement.Context].Score / ex.maxContext
	}
	if c.Lanes[statement.Vector].Rank > 0 {
		x[index["vector_sim"]] = c.Lanes[statement.Vector].Score
	}
}

// words writes what the candidate's words say against the question's: the speaker named,
// the question's words held (plain, by rarity, in its title, in pairs), a question, length.
func (ex *extractor) words(x []float64, i int) {
	c := ex.head[i]
	if c.Speaker != "" {
		if speakerNamed(ex.qWords, c.Speaker) {
			x[index["speaker_named"]] = 1
		} else if ex.named {
			x[index["other_named"]] = 1
		}
	}
	x[index["cover"]] = cover(ex.qTerms, ex.terms[i])
	if ex.idfSum > 0 {
		var held float64
		for _, t := range ex.qList {
			if ex.terms[i][t] {
				held += ex.idf[t]
			}
		}
		x[index["cover_idf"]] = held / ex.idfSum
	}
	if c.Source != nil && c.Source.Title != "" {
		x[index["title_cover"]] = cover(ex.qTerms, Terms(c.Source.Title))
	}
	if len(ex.qPairs) > 0 {
		x[index["pairs"]] = float64(ex.pairsHeld[i]) / float64(len(ex.qPairs))
	}
	if strings.Contains(c.Text, "?") {
		x[index["question"]] = 1
	}
	x[index["log_len"]] = math.Log(1 + float64(ex.fields[i]))
	if quantity(c.Text) {
		x[index["quantity"]] = 1
		if ex.asksCount {
			x[index["quantity_count"]] = 1
		}
	}
	if c.Speaker != "" {
		x[index["self_talk"]] = ex.selfTalk[c.Speaker]
		if ex.asksYou {
			x[index["self_talk_you"]] = ex.selfTalk[c.Speaker]
		}
	}
}

// cover is the share of q's terms in d.
func cover(q, d map[string]bool) float64 {
	if len(q) == 0 {
		return 0
	}
	n := 0
	for t := range q {
		if d[t] {
			n++
		}
	}
	return float64(n) / float64(len(q))
}

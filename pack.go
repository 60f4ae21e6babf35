package recall

import (
	"fmt"
	"strings"
	"time"

	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/statement"
)

// Pack is the answer to one recall: the items that fit the budget, in merit order.
type Pack struct {
	Query   string
	Budget  int
	Items   []Item
	Used    int // tokens of the packed items
	Omitted []Omitted
	// OmittedTokens is what the omitted items would have cost.
	OmittedTokens int
	// Empty says why Items is empty ("" when it is not).
	Empty    budget.Reason
	Abstain  Abstention
	Warnings []Warning
	Timings  Timings
	// Accessed is how many packed memories had their access recorded (0 when recording is
	// off, failed, or the user has no write scope over them).
	Accessed int64
}

// Item is one packed memory with its provenance.
type Item struct {
	ID            int64
	ExternalID    string
	Kind          string
	Text          string // as packed: cut to the budget when Truncated
	Truncated     bool
	Tokens        int
	SourceTitle   string
	SourceURI     string
	Entities      []string
	OccurredStart *time.Time
	OccurredEnd   *time.Time
	Tags          []string
	Metadata      map[string]any
	// Score is the statement's fused score (RRF plus recency and frequency terms).
	Score float64
	// RerankScore is the cross-encoder's score; nil when the item was not reranked.
	RerankScore *float32
	// Direct: the query names this memory's source.
	Direct bool
	// StatementRank is the item's 1-based place in the statement's fused order.
	StatementRank int
	// Lanes is the item's rank and score in every lane (Rank 0: the lane did not return it).
	Lanes [statement.NumLanes]statement.LaneHit
}

// Provenance lists the lanes that found the item with its rank in each, e.g.
// "bm25#1 vector#4 graph#12".
func (it Item) Provenance() string {
	var parts []string
	for l := range statement.Lane(statement.NumLanes) {
		if r := it.Lanes[l].Rank; r > 0 {
			parts = append(parts, fmt.Sprintf("%s#%d", l, r))
		}
	}
	if it.Direct {
		parts = append(parts, "direct")
	}
	return strings.Join(parts, " ")
}

// Omitted is a candidate left out of the pack.
type Omitted struct {
	ID     int64
	Tokens int
	Reason budget.Reason
}

// Abstention signals tell the caller the pack may not answer the question.
type Abstention struct {
	NoMatch bool // the statement found nothing
	// LowSimilarity: the best vector similarity is below Config.MinSimilarity.
	LowSimilarity bool
	TopSimilarity float64 // best cosine similarity in the vector lane (0 without one)
	TooFew        bool    // fewer candidates than Config.MinResults
}

// Any reports whether any signal is raised.
func (a Abstention) Any() bool { return a.NoMatch || a.LowSimilarity || a.TooFew }

// Warning is a stage that was dropped or degraded in lenient mode.
type Warning struct {
	Stage   string // "embed", "rerank", "access"
	Message string
}

func (w Warning) String() string { return w.Stage + ": " + w.Message }

// Timings are the wall time of each stage of one recall.
type Timings struct {
	Embed     time.Duration // query embedding
	Entities  time.Duration // query entity mentions (runs while the query is embedded)
	Statement time.Duration // the recall statement's transaction
	Rerank    time.Duration
	Pack      time.Duration // merit order and the budget walk
	Access    time.Duration // the access recording transaction
	Total     time.Duration
}

package pack

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/statement"
)

// Pack is the answer to one recall: the items that fit the budget, in merit order.
type Pack struct {
	Query  string `json:"query"`
	Budget int    `json:"budget"`
	Items  []Item `json:"items"`
	// Used is the tokens of the packed items.
	Used    int       `json:"used"`
	Omitted []Omitted `json:"omitted"`
	// OmittedTokens is what the omitted items would have cost.
	OmittedTokens int `json:"omitted_tokens"`
	// Empty says why Items is empty ("" when it is not).
	Empty   budget.Reason `json:"empty,omitempty"`
	Abstain Abstention    `json:"abstain"`
	// Cut is how many candidates the relative cut left out, too far below the best and
	// ranked high by no lane (Settings.CutRatio).
	Cut int `json:"cut,omitempty"`
	// Window is the time the question names, when the temporal lane took it from there.
	Window *Window `json:"window,omitempty"`
	// Altitude is the altitude the pack was made at, and Climbs the summaries it packed in
	// place of the memories they cover (Options.Altitude).
	Altitude Altitude `json:"altitude"`
	Climbs   []Climb  `json:"climbs,omitempty"`
	// Passages is how the pack gave long memories the bm25 lane scored by a passage
	// (Options.Passages): whole, their passage, or auto.
	Passages Passages `json:"passages"`
	// GraphContext are the relations between the query's entities and the packed items'
	// (Options.GraphContext), most graph mass first; their tokens, GraphTokens, are part of
	// Used. A pack made with the graph context asked for has the list, empty or not; one made
	// without it has none.
	GraphContext []statement.Triplet `json:"graph_context,omitzero"`
	GraphTokens  int                 `json:"graph_tokens,omitempty"`
	// Sources lists each source of the packed items once, in the order the items name them;
	// an item points at its source by SourceID.
	Sources  []statement.Source `json:"sources"`
	Warnings []Warning          `json:"warnings"`
	Timings  Timings            `json:"timings"`
	// ServedBy says which server ran the statement: ServedByPrimary or ServedByReplica;
	// ServedWhy, for the primary, why (no replica, the replica behind the user's last write,
	// the replica failed).
	ServedBy  string `json:"served_by"`
	ServedWhy string `json:"served_why,omitempty"`
	// Accessed is how many packed memories had their access recorded (0 when recording is
	// off, failed, or the user has no write scope over them).
	Accessed int64 `json:"accessed"`
}

// Normalize makes the Pack's lists empty rather than nil, so that JSON says [] (a client need
// not tell null from no items).
func (p *Pack) Normalize() {
	if p.Items == nil {
		p.Items = []Item{}
	}
	if p.Omitted == nil {
		p.Omitted = []Omitted{}
	}
	if p.Warnings == nil {
		p.Warnings = []Warning{}
	}
	if p.Sources == nil {
		p.Sources = []statement.Source{}
	}
}

// Warn adds a warning of stage.
func (p *Pack) Warn(stage string, err error) {
	p.Warnings = append(p.Warnings, Warning{Stage: stage, Message: err.Error()})
}

// IDs lists the external ids of the packed memories in the order the pack gives them.
func (p *Pack) IDs() []string {
	out := make([]string, len(p.Items))
	for i, it := range p.Items {
		out[i] = it.ExternalID
	}
	return out
}

// Item is one packed memory with its provenance.
type Item struct {
	ID         int64  `json:"id"`
	ExternalID string `json:"external_id"`
	Kind       string `json:"kind"`
	// Text is the text as packed: the matched passage of a long memory when Passage is set
	// (Options.Passages), cut to the budget when Truncated.
	Text string `json:"text"`
	// Passage, when Text is a passage of the memory, is its place in the memory's text, in
	// characters (Unicode code points) from 0, [start, end).
	Passage   *statement.Span `json:"passage,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
	Tokens    int             `json:"tokens"`
	// SourceID is the item's source in Pack.Sources (0: none); SourceTitle and SourceURI are
	// that source's, for Go callers (JSON gives them once, in Pack.Sources).
	SourceID      int64          `json:"source_id,omitempty"`
	SourceTitle   string         `json:"-"`
	SourceURI     string         `json:"-"`
	Entities      []string       `json:"entities,omitempty"`
	OccurredStart *time.Time     `json:"occurred_start,omitempty"`
	OccurredEnd   *time.Time     `json:"occurred_end,omitempty"`
	Tags          []string       `json:"tags,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	// Score is the statement's fused score (RRF plus recency and frequency terms).
	Score float64 `json:"score"`
	// RerankScore is the cross-encoder's score; nil when the item was not reranked.
	RerankScore *float32 `json:"rerank_score,omitempty"`
	// Direct: the query names this memory's source.
	Direct bool `json:"direct,omitempty"`
	// StatementRank is the item's 1-based place in the statement's fused order.
	StatementRank int `json:"statement_rank"`
	// Lanes is the item's rank and score in every lane (Rank 0: the lane did not return it).
	Lanes [statement.NumLanes]statement.LaneHit `json:"-"`
	// Position and Speaker: the memory's place in its source (0: none) and who said it.
	Position int    `json:"position,omitempty"`
	Speaker  string `json:"speaker,omitempty"`
	// Run numbers the items packed together, a memory and the neighbours it needs to be read,
	// adjacent and in their places' order (0: the item stands alone). A neighbour was not
	// found by a lane (its Lanes are empty, its Score 0): it is attached to the item it is
	// read with, AttachedTo (that memory's id), and Context says why: "answer" (it answers
	// that item, the question just before it) or "reply_to" (that item, the short reply just
	// after it, answers it). Attached items are packed and budgeted with their anchor, never
	// ranked above it on their own.
	Run        int    `json:"run,omitempty"`
	Context    string `json:"context,omitempty"`
	AttachedTo int64  `json:"attached_to,omitempty"`
	// Stale, with Options.MarkStale, says why the memory no longer holds at the recall's
	// as_of ("superseded by m42 on 2024-05-01", "expired on ..."); "" when it holds.
	Stale string `json:"stale,omitempty"`
	// OrderScore is the learned order's score of the item (nil without one, or for an
	// attached item).
	OrderScore *float64 `json:"order_score,omitempty"`
	// Covers, for a summary, are the ids of the memories it covers.
	Covers []int64 `json:"covers,omitempty"`
	// AlsoSaid are the memories that say the same words again (the same kind and speaker,
	// the text equal but for case and punctuation), ranked below this one: the pack holds
	// the words once and names the others here, with when they were said.
	AlsoSaid []Restatement `json:"also_said,omitempty"`
}

// A Restatement is a memory left out of a pack because an item above it says the same.
type Restatement struct {
	ID            int64      `json:"id"`
	ExternalID    string     `json:"external_id"`
	SourceID      int64      `json:"source_id,omitempty"`
	OccurredStart *time.Time `json:"occurred_start,omitempty"`
}

// MarshalJSON writes the lanes by name, only those that found the item.
func (it Item) MarshalJSON() ([]byte, error) {
	type plain Item
	lanes := map[string]statement.LaneHit{}
	for l := range statement.Lane(statement.NumLanes) {
		if it.Lanes[l].Rank > 0 {
			lanes[l.String()] = it.Lanes[l]
		}
	}
	return json.Marshal(struct {
		plain
		Lanes map[string]statement.LaneHit `json:"lanes"`
	}{plain(it), lanes})
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

// Attachment says, for an attached item of the pack (Item.AttachedTo), why it is there, in
// words, naming its anchor by its 1-based place in the pack and its external id: "the
// answer to item 3 (m12), the question just before it". "" for an item that is not attached.
func (p *Pack) Attachment(i int) string {
	it := p.Items[i]
	if it.AttachedTo == 0 {
		return ""
	}
	anchor := "an item not in the pack"
	for j, x := range p.Items {
		if x.ID == it.AttachedTo {
			anchor = fmt.Sprintf("item %d (%s)", j+1, x.ExternalID)
		}
	}
	switch it.Context {
	case "answer":
		return "the answer to " + anchor + ", the question just before it"
	case "reply_to":
		return "what " + anchor + ", the short reply just after it, answers"
	}
	return "read with " + anchor
}

// Window is a time span the question names ("last May", "7 July, 2023"), as the temporal
// lane read it.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Text  string    `json:"text"` // the words that named it
}

// Omitted is a candidate left out of the pack.
type Omitted struct {
	ID     int64         `json:"id"`
	Tokens int           `json:"tokens"`
	Reason budget.Reason `json:"reason"`
}

// Abstention signals tell the caller the pack may not answer the question.
type Abstention struct {
	NoMatch bool `json:"no_match"` // the statement found nothing
	// LowSimilarity: the best vector similarity is below Config.MinSimilarity.
	LowSimilarity bool    `json:"low_similarity"`
	TopSimilarity float64 `json:"top_similarity"` // best cosine similarity in the vector lane (0 without one)
	TooFew        bool    `json:"too_few"`        // fewer candidates than Config.MinResults
}

// Any reports whether any signal is raised.
func (a Abstention) Any() bool { return a.NoMatch || a.LowSimilarity || a.TooFew }

// Warning is a stage that was dropped or degraded in lenient mode.
type Warning struct {
	Stage   string `json:"stage"` // "embed", "rerank", "access", "names", ...
	Message string `json:"message"`
}

func (w Warning) String() string { return w.Stage + ": " + w.Message }

// Timings are the wall time of each stage of one recall.
type Timings struct {
	Embed     time.Duration `json:"embed_ns"`     // query embedding
	Entities  time.Duration `json:"entities_ns"`  // query entity mentions (runs while the query is embedded)
	Statement time.Duration `json:"statement_ns"` // the recall statement's transaction
	Order     time.Duration `json:"order_ns"`     // the learned order
	Rerank    time.Duration `json:"rerank_ns"`
	Pack      time.Duration `json:"pack_ns"`   // merit order and the budget walk
	Access    time.Duration `json:"access_ns"` // the access recording transaction
	Total     time.Duration `json:"total_ns"`
}

// Decision is what became of a candidate (a trace's verdict on it).
type Decision string

// Decisions of the walk.
const (
	Packed          Decision = "packed"
	PackedTruncated Decision = "packed_truncated"
	OverBudget      Decision = "over_budget"
	BeyondK         Decision = "beyond_k" // fused rank past Settings.K: never considered
)

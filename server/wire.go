package server

import (
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/statement"
)

// The JSON bodies of the API. Field names are snake_case; unknown fields are refused.

// Scopes narrows the key's scopes for one request: Read within the key's read scopes,
// Write within its write scopes. Empty: the key's own.
type Scopes struct {
	Read  []string `json:"read,omitempty"`
	Write []string `json:"write,omitempty"`
}

// Filters restrict every lane of a recall.
type Filters struct {
	Kinds    []string       `json:"kinds,omitempty"`
	Tags     []string       `json:"tags,omitempty"`
	TagsMode string         `json:"tags_mode,omitempty"` // any (default), any_strict, all, all_strict
	Metadata map[string]any `json:"metadata,omitempty"`  // containment
	From     *time.Time     `json:"from,omitempty"`      // occurred_start >= from
	To       *time.Time     `json:"to,omitempty"`        // occurred_start < to
}

// Window is the temporal lane's time window [start, end).
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// RecallRequest is the body of POST /v1/recall and /v1/trace.
type RecallRequest struct {
	Query    string   `json:"query"`
	Budget   int      `json:"budget"`
	Filters  *Filters `json:"filters,omitempty"`
	Window   *Window  `json:"window,omitempty"`
	NoRerank bool     `json:"no_rerank,omitempty"`
	Label    string   `json:"label,omitempty"` // the asking speaker (else the key's label)
	// Altitude: auto (default), memories or summaries.
	Altitude string `json:"altitude,omitempty"`
	// Passages: auto (default), whole or passage: how a long memory scored by one of its
	// passages is packed (item "passage" names the part given).
	Passages string `json:"passages,omitempty"`
	// GraphContext adds the relations between the query's entities and the packed items'.
	GraphContext bool `json:"graph_context,omitempty"`
	// ReadYourWrites: with a replica, wait (bounded) until it has replayed this user's last
	// write through this server, else the primary answers.
	ReadYourWrites bool `json:"read_your_writes,omitempty"`
	// AsOf asks what held at that time: memories outside their validity or superseded by
	// then are left out (default: now).
	AsOf *time.Time `json:"as_of,omitempty"`
	// MarkStale packs those memories too, each with why it no longer holds (item "stale").
	MarkStale bool `json:"mark_stale,omitempty"`
	Scopes
}

func (r *RecallRequest) options() *recall.Options {
	o := &recall.Options{NoRerank: r.NoRerank, Altitude: recall.Altitude(r.Altitude), Passages: recall.Passages(r.Passages), GraphContext: r.GraphContext, ReadYourWrites: r.ReadYourWrites,
		MarkStale: r.MarkStale}
	if f := r.Filters; f != nil {
		o.Filters = statement.Filters{Kinds: f.Kinds, Tags: f.Tags, TagsMode: statement.TagsMode(f.TagsMode), Metadata: f.Metadata}
		if f.From != nil {
			o.Filters.From = *f.From
		}
		if f.To != nil {
			o.Filters.To = *f.To
		}
	}
	if r.Window != nil {
		o.WindowStart, o.WindowEnd = r.Window.Start, r.Window.End
	}
	if r.AsOf != nil {
		o.AsOf = *r.AsOf
	}
	return o
}

// TraceCandidate is one row of the statement in a trace and what became of it.
type TraceCandidate struct {
	ID          int64    `json:"id"`
	ExternalID  string   `json:"external_id"`
	FusedRank   int      `json:"fused_rank"`
	MeritRank   int      `json:"merit_rank,omitempty"`
	RerankScore *float32 `json:"rerank_score,omitempty"`
	Tokens      int      `json:"tokens"`
	Decision    string   `json:"decision"`
	Why         string   `json:"why"` // lane by lane
	Text        string   `json:"text"`
	// RRF is the fused score's lane part, Score the fused score (RRF plus recency and
	// frequency), OrderScore the learned order's score (when one ran).
	RRF        float64  `json:"rrf"`
	Score      float64  `json:"score"`
	OrderScore *float64 `json:"order_score,omitempty"`
	// Lanes are the lanes that found it: rank, the lane's own score, and what the rank adds
	// to RRF (the lane's weight / (rrf_k + rank)).
	Lanes map[string]TraceLane `json:"lanes"`
}

// TraceLane is one lane's finding of a candidate.
type TraceLane struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
	Adds  float64 `json:"adds"`
}

// TraceResponse is the body POST /v1/trace answers with.
type TraceResponse struct {
	Pack       *recall.Pack     `json:"pack"`
	SearchText string           `json:"search_text"`
	Mentions   []string         `json:"mentions"`
	K          int              `json:"k"`
	Candidates []TraceCandidate `json:"candidates"`
	// LeftOut are the candidates found that do not hold at the recall's as_of, and why.
	LeftOut []recall.LeftOut `json:"left_out"`
	// Lanes are the plan's lanes, each with its candidates' external ids in lane order.
	Lanes []TraceLaneList `json:"lanes"`
}

// TraceLaneList is one lane's ranked list.
type TraceLaneList struct {
	Lane   string   `json:"lane"`
	Weight float64  `json:"weight"`
	IDs    []string `json:"ids"`
}

func traceResponse(t *recall.Trace) TraceResponse {
	out := TraceResponse{Pack: t.Pack, SearchText: t.SearchText, Mentions: t.Mentions, K: t.K, Candidates: []TraceCandidate{},
		LeftOut: append([]recall.LeftOut{}, t.Left...)}
	if out.Mentions == nil {
		out.Mentions = []string{}
	}
	for i := range t.Candidates {
		c := &t.Candidates[i]
		tc := TraceCandidate{ID: c.ID, ExternalID: c.ExternalID, FusedRank: c.FusedRank,
			MeritRank: c.MeritRank, RerankScore: c.RerankScore, Tokens: c.Tokens, Decision: string(c.Decision), Why: t.Why(c),
			Text: c.Text, RRF: c.RRF, Score: c.Score, OrderScore: c.OrderScore, Lanes: map[string]TraceLane{}}
		for _, l := range statement.Lanes() {
			if h := c.Lanes[l]; h.Rank > 0 && t.Shape.Plan.Has(l) {
				tc.Lanes[l.String()] = TraceLane{Rank: h.Rank, Score: h.Score, Adds: t.Settings.RRF(l, h.Rank)}
			}
		}
		out.Candidates = append(out.Candidates, tc)
	}
	out.Lanes = []TraceLaneList{}
	for _, l := range statement.Lanes() {
		if !t.Shape.Plan.Has(l) {
			continue
		}
		ll := TraceLaneList{Lane: l.String(), Weight: t.Settings.Weights[l], IDs: []string{}}
		for _, i := range t.Lanes[l] {
			ll.IDs = append(ll.IDs, t.Candidates[i].ExternalID)
		}
		out.Lanes = append(out.Lanes, ll)
	}
	return out
}

// WriteRequest is the body of POST /v1/memories: one batch, written all or nothing, into its
// scopes (each one of the key's write scopes; empty: the key's only write scope). It is the
// engine's own Batch (package write), so a field added there reaches HTTP, MCP and JSONL.
type WriteRequest = recall.Batch

// WriteResponse counts what a batch wrote (the engine's WriteResult).
type WriteResponse = recall.WriteResult

// SummarizeRequest is the body of POST /v1/summarize: build the summaries of one scope set
// (Scopes: each one of the key's write scopes; empty: the key's only write scope).
type SummarizeRequest struct {
	Scopes    []string `json:"scopes,omitempty"`
	By        []string `json:"by,omitempty"`         // session, community (default both)
	MaxTokens int      `json:"max_tokens,omitempty"` // a summary's cap (default 200)
}

// SummarizeResponse says what POST /v1/summarize did.
type SummarizeResponse struct {
	Groups  map[string]int `json:"groups"` // summaries by grouping
	Written int            `json:"written"`
	Pruned  int            `json:"pruned"`  // summaries of groups that are gone
	Covered int            `json:"covered"` // (summary, memory) pairs
}

// DeleteRequest is the body of DELETE /v1/memories: memories of Scopes (empty: the key's
// only write scope) by id.
type DeleteRequest struct {
	Scopes []string `json:"scopes,omitempty"`
	IDs    []string `json:"ids"`
}

// DeleteResponse says how many memories were deleted.
type DeleteResponse struct {
	Deleted int `json:"deleted"`
}

// PruneRequest is the body of POST /v1/prune: delete the memories of Scopes (empty: the
// key's only write scope) whose expires_at is at or before At (default: now), as a delete
// does. Recall already leaves them out from the moment they expire.
type PruneRequest struct {
	Scopes []string   `json:"scopes,omitempty"`
	At     *time.Time `json:"at,omitempty"`
}

// SupersedeRequest is the body of POST /v1/supersede: the stored memories Supersedes of
// Scopes (empty: the key's only write scope) are superseded by the stored memory By of the
// same scope set, from At (default: By's valid_from, else its occurred_start, else now).
// Recall then answers with By where it answered with them; as_of asks about a time before.
type SupersedeRequest struct {
	Scopes     []string   `json:"scopes,omitempty" jsonschema:"optional: the scope set of both (default: the key's only write scope)"`
	By         string     `json:"by" jsonschema:"the id of the newer memory, already stored"`
	Supersedes []string   `json:"supersedes" jsonschema:"the ids of the memories it replaces"`
	At         *time.Time `json:"at,omitempty" jsonschema:"optional: when they stopped being true (RFC 3339; default: the newer memory's valid_from, else its occurred_start, else now)"`
}

// SupersedeResponse says how many memories were marked superseded.
type SupersedeResponse struct {
	Superseded int `json:"superseded"`
}

// PruneResponse says how many expired memories were deleted.
type PruneResponse struct {
	Deleted int `json:"deleted"`
}

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
	// GraphContext adds the relations between the query's entities and the packed items'.
	GraphContext bool `json:"graph_context,omitempty"`
	// ReadYourWrites: with a replica, wait (bounded) until it has replayed this user's last
	// write through this server, else the primary answers.
	ReadYourWrites bool `json:"read_your_writes,omitempty"`
	Scopes
}

func (r *RecallRequest) options() *recall.Options {
	o := &recall.Options{NoRerank: r.NoRerank, Altitude: recall.Altitude(r.Altitude), GraphContext: r.GraphContext, ReadYourWrites: r.ReadYourWrites}
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
}

// TraceResponse is the body POST /v1/trace answers with.
type TraceResponse struct {
	Pack       *recall.Pack     `json:"pack"`
	SearchText string           `json:"search_text"`
	Mentions   []string         `json:"mentions"`
	K          int              `json:"k"`
	Candidates []TraceCandidate `json:"candidates"`
}

func traceResponse(t *recall.Trace) TraceResponse {
	out := TraceResponse{Pack: t.Pack, SearchText: t.SearchText, Mentions: t.Mentions, K: t.K, Candidates: []TraceCandidate{}}
	if out.Mentions == nil {
		out.Mentions = []string{}
	}
	for i := range t.Candidates {
		c := &t.Candidates[i]
		out.Candidates = append(out.Candidates, TraceCandidate{ID: c.ID, ExternalID: c.ExternalID, FusedRank: c.FusedRank,
			MeritRank: c.MeritRank, RerankScore: c.RerankScore, Tokens: c.Tokens, Decision: string(c.Decision), Why: t.Why(c)})
	}
	return out
}

// Source is a document memories come from.
type Source struct {
	ID         string         `json:"id"`
	Title      string         `json:"title,omitempty"`
	URI        string         `json:"uri,omitempty"`
	OccurredAt *time.Time     `json:"occurred_at,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// Memory is one recallable unit.
type Memory struct {
	ID            string         `json:"id"`
	Source        string         `json:"source,omitempty"`
	Kind          string         `json:"kind,omitempty"`
	Text          string         `json:"text"`
	Embedding     []float32      `json:"embedding,omitempty"`
	OccurredStart *time.Time     `json:"occurred_start,omitempty"`
	OccurredEnd   *time.Time     `json:"occurred_end,omitempty"`
	Tags          []string       `json:"tags,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	Speaker       string         `json:"speaker,omitempty"`
	Position      int            `json:"position,omitempty"`
	Entities      []string       `json:"entities,omitempty"`
	// Covers, for a summary (kind summary), are the ids of the memories it summarizes.
	Covers []string `json:"covers,omitempty"`
}

// Entity is a person, place or thing memories mention.
type Entity struct {
	ID       string         `json:"id"`
	Name     string         `json:"name"`
	Kind     string         `json:"kind,omitempty"`
	Aliases  []string       `json:"aliases,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Relation is an edge of the entity graph.
type Relation struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	Predicate string  `json:"predicate,omitempty"`
	Weight    float64 `json:"weight,omitempty"`
	Memory    string  `json:"memory,omitempty"`
}

// WriteRequest is the body of POST /v1/memories: one batch, written all or nothing, into
// Scopes (each one of the key's write scopes; empty: the key's only write scope).
type WriteRequest struct {
	Scopes    []string   `json:"scopes,omitempty"`
	Sources   []Source   `json:"sources,omitempty"`
	Memories  []Memory   `json:"memories,omitempty"`
	Entities  []Entity   `json:"entities,omitempty"`
	Relations []Relation `json:"relations,omitempty"`
}

func (w *WriteRequest) batch() recall.Batch {
	b := recall.Batch{Scopes: w.Scopes}
	for _, s := range w.Sources {
		b.Sources = append(b.Sources, recall.Source{ID: s.ID, Title: s.Title, URI: s.URI, OccurredAt: s.OccurredAt, Metadata: s.Metadata})
	}
	for _, m := range w.Memories {
		b.Memories = append(b.Memories, recall.Memory{ID: m.ID, Source: m.Source, Kind: m.Kind, Text: m.Text, Embedding: m.Embedding,
			OccurredStart: m.OccurredStart, OccurredEnd: m.OccurredEnd, Tags: m.Tags, Metadata: m.Metadata,
			Speaker: m.Speaker, Position: m.Position, Entities: m.Entities, Covers: m.Covers})
	}
	for _, e := range w.Entities {
		b.Entities = append(b.Entities, recall.Entity{ID: e.ID, Name: e.Name, Kind: e.Kind, Aliases: e.Aliases, Metadata: e.Metadata})
	}
	for _, r := range w.Relations {
		b.Relations = append(b.Relations, recall.Relation{From: r.From, To: r.To, Predicate: r.Predicate, Weight: r.Weight, Memory: r.Memory})
	}
	return b
}

// WriteResponse counts what a batch wrote.
type WriteResponse struct {
	Sources   int `json:"sources"`
	Memories  int `json:"memories"`
	Updated   int `json:"updated"`
	Entities  int `json:"entities"`
	Extracted int `json:"extracted"`
	Mentions  int `json:"mentions"`
	Relations int `json:"relations"`
	Covered   int `json:"covered"` // (summary, covered memory) pairs
}

func writeResponse(r recall.WriteResult) WriteResponse {
	return WriteResponse{Sources: r.Sources, Memories: r.Memories, Updated: r.Updated, Entities: r.Entities,
		Extracted: r.Extracted, Mentions: r.Mentions, Relations: r.Relations, Covered: r.Covered}
}

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

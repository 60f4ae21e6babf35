package statement

import (
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// LaneHit is a candidate's place in one lane; Rank 0 means the lane did not return it.
type LaneHit struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

// Candidate is one row of the statement: the memory, its place in every lane, and the fused
// score.
type Candidate struct {
	ID            int64
	ExternalID    string
	Kind          string
	Text          string
	Tags          []string
	Metadata      map[string]any
	OccurredStart *time.Time
	OccurredEnd   *time.Time
	LastAccessed  *time.Time
	AccessCount   int64
	// Source is the memory's source (nil: none).
	Source   *Source
	Position int      // place in its source (0: none)
	Speaker  string   // who said it ("" for none)
	Entities []string // names of the entities it mentions that the caller can see
	// NamesDeferred says the statement left Entities out (Query.DeferNames): EntityNames
	// reads them.
	NamesDeferred bool
	Lanes         [NumLanes]LaneHit
	Direct        bool    // the query names this memory's source title
	RRF           float64 // sum of weight / (rrf_k + rank)
	Score         float64 // RRF plus the recency and frequency terms
	// Context are the neighbours the statement returns with one of its best candidates with
	// a place, needed to read it: the turn that answers it (a question) or that it replies to
	// (a short reply).
	Context []Candidate
	// ContextOf, for a neighbour, is the candidate it gives context to, and ContextWhy why:
	// "answer" (it follows that question) or "reply_to" (that short reply answers it).
	ContextOf  int64
	ContextWhy string
	// Covers, for a summary, are the ids of the visible memories it covers.
	Covers []int64
	// GraphContext are the visible relations between an entity the candidate mentions and
	// one the query names, most graph mass first (with Query.GraphContext).
	GraphContext []Triplet
	// Stale says why the memory does not hold at the recall's as_of ("superseded by m42 on
	// 2024-05-01", "expired on ...", ...); "" when it holds. Only Query.KeepStale returns such
	// a memory.
	Stale string
	// ReplacedBy, for a memory Stale says is superseded, is the external id of the memory
	// that superseded it.
	ReplacedBy string
	// Passage, for a long memory the bm25 lane scored by one of its passages (more than
	// recall.passage_words() words: sql/write/lexemes.sql), is that passage's place in Text;
	// nil otherwise. The pack may give it instead of the whole memory.
	Passage *Span
}

// Span is a part of a memory's text: characters (Unicode code points) [Start, End) of it.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Source is a candidate's source document.
type Source struct {
	ID         int64          `json:"id"`
	ExternalID string         `json:"external_id"`
	Title      string         `json:"title,omitempty"`
	URI        string         `json:"uri,omitempty"`
	OccurredAt *time.Time     `json:"occurred_at,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// Triplet is one relation of a graph context: subject, predicate, object, and the memory it
// comes from when the caller can see it.
type Triplet struct {
	Relation  int64   `json:"relation"`
	Subject   string  `json:"subject"`
	Predicate string  `json:"predicate"`
	Object    string  `json:"object"`
	Evidence  string  `json:"evidence,omitempty"` // the evidence memory's external id
	Weight    float64 `json:"weight"`
	Mass      float64 `json:"mass"` // the graph lane's mass of its ends
}

// attachContext moves the neighbour rows of the statement's output (after the candidates)
// into their candidates' Context.
func attachContext(rows []Candidate) []Candidate {
	n := len(rows)
	for n > 0 && rows[n-1].ContextOf != 0 {
		n--
	}
	cands := rows[:n:n]
	at := make(map[int64]int, n)
	for i, c := range cands {
		at[c.ID] = i
	}
	for _, x := range rows[n:] {
		if i, ok := at[x.ContextOf]; ok {
			cands[i].Context = append(cands[i].Context, x)
		}
	}
	return cands
}

// row is the statement's output row, scanned by column name (sql/lanes/output.sql);
// lane_ranks and lane_scores hold every lane's rank and score in lane order, NULL where the
// lane did not return the memory.
type row struct {
	ID            int64          `db:"id"`
	LaneRanks     []*int64       `db:"lane_ranks"`
	LaneScores    []*float64     `db:"lane_scores"`
	Direct        bool           `db:"direct"`
	RRF           float64        `db:"rrf"`
	Fused         float64        `db:"fused"`
	LastAccessed  *time.Time     `db:"last_accessed"`
	AccessCount   int64          `db:"access_count"`
	ContextOf     *int64         `db:"context_of"`
	ContextWhy    *string        `db:"context_why"`
	ExternalID    string         `db:"external_id"`
	Kind          string         `db:"kind"`
	Text          string         `db:"text"`
	Tags          []string       `db:"tags"`
	Metadata      map[string]any `db:"metadata"`
	OccurredStart *time.Time     `db:"occurred_start"`
	OccurredEnd   *time.Time     `db:"occurred_end"`
	SourceID      *int64         `db:"source_id"`
	SourceTitle   string         `db:"source_title"`
	SourceURI     string         `db:"source_uri"`
	SourceExtID   *string        `db:"source_external_id"`
	SourceAt      *time.Time     `db:"source_occurred_at"`
	SourceMeta    map[string]any `db:"source_metadata"`
	Position      *int32         `db:"position"`
	Speaker       string         `db:"speaker"`
	Entities      []string       `db:"entities"`
	Covers        []int64        `db:"covers"`
	GraphContext  []Triplet      `db:"graph_context"`
	Holds         bool           `db:"holds"`
	ValidFrom     *time.Time     `db:"valid_from"`
	ValidUntil    *time.Time     `db:"valid_until"`
	SupersededAt  *time.Time     `db:"superseded_at"`
	ExpiresAt     *time.Time     `db:"expires_at"`
	SupersededBy  *string        `db:"superseded_by"`
	PassageStart  *int32         `db:"passage_start"`
	PassageEnd    *int32         `db:"passage_end"`
}

// staleWhy words why a row does not hold (the statement's recall.holds decided it does not),
// in the rule's order: expiry at now, then supersession, then the validity window at as_of.
func (x *row) staleWhy(now, asOf time.Time) string {
	day := func(t *time.Time) string { return t.UTC().Format(time.DateOnly) }
	switch {
	case x.ExpiresAt != nil && !x.ExpiresAt.After(now):
		return "expired on " + day(x.ExpiresAt)
	case x.SupersededBy != nil && x.SupersededAt != nil && !x.SupersededAt.After(asOf):
		return fmt.Sprintf("superseded by %s on %s", *x.SupersededBy, day(x.SupersededAt))
	case x.ValidFrom != nil && x.ValidFrom.After(asOf):
		return "not yet valid: valid from " + day(x.ValidFrom)
	case x.ValidUntil != nil && !x.ValidUntil.After(asOf):
		return "no longer valid: valid until " + day(x.ValidUntil)
	}
	return "does not hold at " + asOf.UTC().Format(time.DateOnly)
}

// scanCandidate reads one output row; now and asOf are the recall's, for a stale row's why.
func scanCandidate(r pgx.CollectableRow, now, asOf time.Time) (Candidate, error) {
	x, err := pgx.RowToStructByName[row](r)
	if err != nil {
		return Candidate{}, err
	}
	c := Candidate{
		ID: x.ID, ExternalID: x.ExternalID, Kind: x.Kind, Text: x.Text, Tags: x.Tags, Metadata: x.Metadata,
		OccurredStart: x.OccurredStart, OccurredEnd: x.OccurredEnd, LastAccessed: x.LastAccessed, AccessCount: x.AccessCount,
		Entities: x.Entities,
		Direct:   x.Direct, RRF: x.RRF, Score: x.Fused, Speaker: x.Speaker, Covers: x.Covers, GraphContext: x.GraphContext,
	}
	if x.SourceID != nil && x.SourceExtID != nil {
		c.Source = &Source{ID: *x.SourceID, ExternalID: *x.SourceExtID, Title: x.SourceTitle, URI: x.SourceURI, OccurredAt: x.SourceAt, Metadata: x.SourceMeta}
	}
	if x.Position != nil {
		c.Position = int(*x.Position)
	}
	if x.PassageStart != nil && x.PassageEnd != nil {
		c.Passage = &Span{Start: int(*x.PassageStart), End: int(*x.PassageEnd)}
	}
	if !x.Holds {
		c.Stale = x.staleWhy(now, asOf)
		if x.SupersededBy != nil && x.SupersededAt != nil && !x.SupersededAt.After(asOf) {
			c.ReplacedBy = *x.SupersededBy
		}
	}
	if x.ContextOf != nil {
		c.ContextOf = *x.ContextOf
	}
	if x.ContextWhy != nil {
		c.ContextWhy = *x.ContextWhy
	}
	for l := range min(NumLanes, len(x.LaneRanks), len(x.LaneScores)) {
		if x.LaneRanks[l] != nil {
			c.Lanes[l].Rank = int(*x.LaneRanks[l])
		}
		if x.LaneScores[l] != nil {
			c.Lanes[l].Score = *x.LaneScores[l]
		}
	}
	return c, nil
}

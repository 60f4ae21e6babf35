package statement

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/recall-engine/recall/internal/scope"
)

// Settings are the statement's tunables. Each is a bind (or a SET LOCAL), so a changed value
// takes effect on the next call with no cache invalidation. DefaultSettings documents the
// defaults.
type Settings struct {
	RRFK    float64           // RRF constant k in weight / (k + rank)
	Weights [NumLanes]float64 // per-lane RRF weight

	VectorK           int     // vector lane depth
	VectorMaxDistance float64 // cosine distance floor: hits farther than this are dropped
	EfSearch          int     // hnsw.ef_search
	VectorExactScale  float64 // exact search (no HNSW) when visible^2 <= VectorExactScale * all memories

	BM25K        int     // BM25 lane depth
	BM25K1       float64 // BM25 k1
	BM25B        float64 // BM25 b
	BM25Postings int     // postings read per query term and scope set (0: all)
	BM25Whole    int     // a term in at most this many visible memories is read whole, not probed per candidate

	MentionK         int     // mention lane depth
	MentionEntitiesK int     // entities matched by the fuzzy branch
	MentionFloor     float64 // trigram similarity floor for entity names, in (0, 1]
	MentionPostings  int     // newest memories read per named entity (0: all)

	TitleK          int     // title lane depth
	TitleSourcesK   int     // sources matched by title
	TitleFloor      float64 // trigram similarity floor for titles, in (0, 1]
	TitleExactWords int     // longest query n-gram (in words) matched against title keys
	TitleFuzzyWords int     // longest query n-gram (in words) matched by trigram similarity

	GraphK          int     // graph lane depth
	GraphDamping    float64 // PageRank damping
	GraphIterations int     // power iterations
	GraphHops       int     // walk radius around the seeds
	GraphFrontier   int     // most entities in the walk
	GraphDegree     int     // heaviest edges kept per entity
	GraphSeedHits   int     // vector hits whose entities seed the walk when the query names none
	GraphEntities   int     // entities with the most mass that score memories
	GraphMentions   int     // newest memories each of them gives its mass to (0: all)

	TemporalK     int     // temporal lane depth
	TemporalScale float64 // seconds: score 1 / (1 + gap / scale)
	TemporalSlack float64 // seconds around the window that still count

	WRecency        float64       // weight of the recency term
	RecencyHalfLife time.Duration // half-life of the recency term over last_accessed
	WFrequency      float64       // weight of ln(1 + access_count)

	K       int           // rows returned
	Timeout time.Duration // statement_timeout (0: the server's)
}

// DefaultSettings returns the defaults, tuned on SciFact's train split where a lane applies.
func DefaultSettings() Settings {
	return Settings{
		RRFK:              20,
		Weights:           [NumLanes]float64{0.3, 1, 0.2, 0.1, 0.5, 0.3},
		VectorK:           100,
		VectorMaxDistance: 1.0,
		EfSearch:          100,
		VectorExactScale:  250,
		BM25K:             100,
		BM25K1:            0.9,
		BM25B:             0.4,
		BM25Postings:      300,
		BM25Whole:         10000,
		MentionK:          50,
		MentionEntitiesK:  16,
		MentionFloor:      0.7,
		MentionPostings:   1000,
		TitleK:            20,
		TitleSourcesK:     8,
		TitleFloor:        0.6,
		TitleExactWords:   16,
		TitleFuzzyWords:   4,
		GraphK:            50,
		GraphDamping:      0.85,
		GraphIterations:   20,
		GraphHops:         2,
		GraphFrontier:     128,
		GraphDegree:       16,
		GraphSeedHits:     5,
		GraphEntities:     20,
		GraphMentions:     100,
		TemporalK:         50,
		TemporalScale:     86400,
		TemporalSlack:     30 * 86400,
		WRecency:          0.002,
		RecencyHalfLife:   7 * 24 * time.Hour,
		WFrequency:        0.001,
		K:                 100,
		Timeout:           10 * time.Second,
	}
}

// TagsMode is how Filters.Tags matches a memory's tags.
type TagsMode string

// Tag modes: any / all include untagged memories; the strict forms exclude them.
const (
	TagsAny       TagsMode = "any"
	TagsAnyStrict TagsMode = "any_strict"
	TagsAll       TagsMode = "all"
	TagsAllStrict TagsMode = "all_strict"
)

// Filters restrict every lane (inside the lane, before its LIMIT). Zero values filter nothing.
type Filters struct {
	Kinds    []string
	Tags     []string
	TagsMode TagsMode // default TagsAny
	Metadata map[string]any
	From, To time.Time // occurred_start in [From, To)
}

func (f Filters) active() bool {
	return len(f.Kinds) > 0 || len(f.Tags) > 0 || len(f.Metadata) > 0 || !f.From.IsZero() || !f.To.IsZero()
}

// Query is one recall's input to the statement.
type Query struct {
	Text     string    // search text: BM25 (after the speaker rewrite)
	Raw      string    // the raw question: titles, entity mentions
	Vector   []float32 // query embedding; its length must equal the statement's dimension
	Mentions []string  // lowered entity mentions; nil: the word n-grams of Raw
	// Window is the query's time window [Start, End); zero: no temporal lane input.
	WindowStart, WindowEnd time.Time
	Filters                Filters
	Now                    time.Time // for recency; zero: time.Now()
}

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
	SourceID      *int64
	SourceTitle   string
	SourceURI     string
	Entities      []string // names of the entities it mentions that the caller can see
	Lanes         [NumLanes]LaneHit
	Direct        bool    // the query names this memory's source title
	RRF           float64 // sum of weight / (rrf_k + rank)
	Score         float64 // RRF plus the recency and frequency terms
}

// Scopes are the caller's normalized read and write scopes.
type Scopes struct{ Read, Write []string }

// Sentinel errors of Run, matched with errors.Is.
var (
	ErrTimeout   = errors.New("statement: timed out")
	ErrDimension = errors.New("statement: query vector dimension differs from the statement's")
)

// Args returns the statement's binds for q and s, exactly the names st uses.
func (st *Statement) Args(q Query, s Settings) (pgx.NamedArgs, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if st.Shape.Dim > 0 && len(q.Vector) != st.Shape.Dim {
		return nil, fmt.Errorf("%w: %d, statement %d", ErrDimension, len(q.Vector), st.Shape.Dim)
	}
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	mentions := q.Mentions
	if mentions == nil {
		mentions = Mentions(q.Raw)
	}
	f := q.Filters
	all := map[string]any{
		"qtext": q.Text, "qlower": strings.ToLower(q.Raw), "qentities": mentions, "now": now, "k": s.K,
		"rrf_k": s.RRFK, "w_recency": s.WRecency, "w_frequency": s.WFrequency,
		"recency_half_life": s.RecencyHalfLife.Seconds(),
		"vector_k":          s.VectorK, "vector_max_distance": s.VectorMaxDistance, "vector_exact_scale": s.VectorExactScale,
		"bm25_k": s.BM25K, "bm25_k1": s.BM25K1, "bm25_b": s.BM25B, "bm25_postings": nullIfZero(s.BM25Postings),
		"bm25_whole": s.BM25Whole,
		"mention_k":  s.MentionK, "mention_entities_k": s.MentionEntitiesK, "mention_floor": s.MentionFloor,
		"mention_postings": nullIfZero(s.MentionPostings),
		"title_k":          s.TitleK, "title_sources_k": s.TitleSourcesK, "title_floor": s.TitleFloor,
		"title_exact_words": s.TitleExactWords, "title_fuzzy_words": s.TitleFuzzyWords,
		"graph_k": s.GraphK, "graph_damping": s.GraphDamping, "graph_iterations": s.GraphIterations,
		"graph_hops": s.GraphHops, "graph_frontier": s.GraphFrontier, "graph_degree": s.GraphDegree, "graph_seed_hits": s.GraphSeedHits,
		"graph_entities": s.GraphEntities, "graph_mentions": nullIfZero(s.GraphMentions),
		"temporal_k": s.TemporalK, "temporal_scale": s.TemporalScale, "temporal_slack": s.TemporalSlack,
		"t_start": nullTime(q.WindowStart), "t_end": nullTime(q.WindowEnd),
		"f_none": !f.active(), "f_kinds": nullSlice(f.Kinds), "f_tags": nullSlice(f.Tags), "f_tags_mode": string(tagsMode(f.TagsMode)),
		"f_metadata": nullMap(f.Metadata), "f_from": nullTime(f.From), "f_to": nullTime(f.To),
	}
	if f.active() {
		// A filter may hide most of a term's best postings or an entity's newest memories:
		// read them all so the lanes are full.
		all["bm25_postings"] = nil
		all["bm25_whole"] = math.MaxInt32 // every posting is a candidate: read the lists once each
		all["graph_mentions"] = nil
		all["mention_postings"] = nil
	}
	if st.Shape.Dim > 0 {
		all["qvec"] = pgvector.NewVector(q.Vector)
	}
	for l := range Lane(NumLanes) {
		all["w_"+l.String()] = s.Weights[l]
	}
	args := make(pgx.NamedArgs, len(st.Binds))
	for _, n := range st.Binds {
		v, ok := all[n]
		if !ok {
			return nil, fmt.Errorf("statement: no value for bind @%s", n)
		}
		args[n] = v
	}
	return args, nil
}

func tagsMode(m TagsMode) TagsMode {
	if m == "" {
		return TagsAny
	}
	return m
}

func nullIfZero(n int) any {
	if n <= 0 {
		return nil
	}
	return n
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func nullSlice(s []string) any {
	if len(s) == 0 {
		return nil
	}
	return s
}

func nullMap(m map[string]any) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// Session returns the SET LOCAL settings a recall transaction runs with: HNSW search depth
// and iterative scans, generic plans, the trigram threshold, and the statement timeout.
func (s Settings) Session() []scope.Setting {
	out := []scope.Setting{
		{Name: "hnsw.ef_search", Value: strconv.Itoa(max(s.EfSearch, s.VectorK))},
		{Name: "hnsw.iterative_scan", Value: "relaxed_order"},
		// Every tunable is a bind, so one generic plan per connection serves every call:
		// planning the maximal statement anew costs more than most of its lanes.
		{Name: "plan_cache_mode", Value: "force_generic_plan"},
		{Name: "pg_trgm.similarity_threshold", Value: strconv.FormatFloat(min(s.MentionFloor, s.TitleFloor), 'f', -1, 64)},
	}
	if s.Timeout > 0 {
		out = append(out, scope.Setting{Name: "statement_timeout", Value: strconv.FormatInt(s.Timeout.Milliseconds(), 10)})
	}
	return out
}

// Run executes st for q in one read-only transaction as the caller: scopes and settings with
// SET LOCAL, then the statement. pool must connect as the runtime role.
func Run(ctx context.Context, pool *pgxpool.Pool, who Scopes, st *Statement, q Query, s Settings) ([]Candidate, error) {
	out, err := RunEach(ctx, pool, who, []*Statement{st}, q, s)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// RunEach executes several statements for q one after the other in one read-only
// transaction as the caller (one snapshot), returning each one's candidates. It is how the
// lanes run as separate queries, for comparison with the single statement.
func RunEach(ctx context.Context, pool *pgxpool.Pool, who Scopes, sts []*Statement, q Query, s Settings) ([][]Candidate, error) {
	args := make([]pgx.NamedArgs, len(sts))
	for i, st := range sts {
		a, err := st.Args(q, s)
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after Commit

	if err := scope.Apply(ctx, tx, who.Read, who.Write, s.Session()...); err != nil {
		return nil, interpretError(ctx, err)
	}
	out := make([][]Candidate, len(sts))
	for i, st := range sts {
		rows, err := tx.Query(ctx, st.SQL, args[i])
		if err != nil {
			return nil, interpretError(ctx, err)
		}
		if out[i], err = pgx.CollectRows(rows, scanCandidate); err != nil {
			return nil, interpretError(ctx, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, interpretError(ctx, err)
	}
	return out, nil
}

func scanCandidate(row pgx.CollectableRow) (Candidate, error) {
	var c Candidate
	var ranks [NumLanes]*int64
	var scores [NumLanes]*float64
	dest := []any{&c.ID}
	for l := range NumLanes {
		dest = append(dest, &ranks[l], &scores[l])
	}
	dest = append(dest, &c.Direct, &c.RRF, &c.Score, &c.LastAccessed, &c.AccessCount,
		&c.ExternalID, &c.Kind, &c.Text, &c.Tags, &c.Metadata, &c.OccurredStart, &c.OccurredEnd,
		&c.SourceID, &c.SourceTitle, &c.SourceURI, &c.Entities)
	if err := row.Scan(dest...); err != nil {
		return c, err
	}
	for l := range NumLanes {
		if ranks[l] != nil {
			c.Lanes[l].Rank = int(*ranks[l])
		}
		if scores[l] != nil {
			c.Lanes[l].Score = *scores[l]
		}
	}
	return c, nil
}

// interpretError is the one place driver errors become the package's errors.
func interpretError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("recall statement: %w", ctx.Err())
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "57014" { // query_canceled: statement_timeout
		return fmt.Errorf("%w: %s", ErrTimeout, pe.Message)
	}
	return fmt.Errorf("recall statement: %w", err)
}

// Mentions returns the lowered word n-grams (1 to 4 words) of s, the candidate entity
// mentions matched exactly against entity names and aliases. At most 256, in order of
// appearance.
func Mentions(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-' && r != '.' && r != '&'
	})
	for i, w := range words {
		words[i] = strings.Trim(w, "'-.&")
	}
	seen := map[string]bool{}
	out := []string{}
	for i := range words {
		for n := 1; n <= 4 && i+n <= len(words); n++ {
			g := strings.Join(words[i:i+n], " ")
			if g == "" || strings.HasPrefix(g, " ") || strings.HasSuffix(g, " ") || seen[g] {
				continue
			}
			seen[g] = true
			out = append(out, g)
			if len(out) == 256 {
				return out
			}
		}
	}
	return out
}

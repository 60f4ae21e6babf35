package recall

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall/access"
	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/rerank"
	"github.com/recall-engine/recall/sql"
	"github.com/recall-engine/recall/statement"
	"github.com/recall-engine/recall/write"
)

// Config builds an Engine. Zero values take the documented defaults.
// Expander gives the words a question's terms are expanded with (package lexicon).
type Expander interface {
	Expand(question string) []string
}

type Config struct {
	// Pool connects as the runtime role (recall_runtime), the one row security always applies
	// to. Required. New refuses a role that bypasses row security.
	Pool *pgxpool.Pool
	// AccessPool is where access recording writes (nil: Pool).
	AccessPool *pgxpool.Pool
	// Replica, when set, connects as the runtime role to a streaming replica of Pool's
	// database: the recall statement runs there, while writes, access recording and the
	// dimension check stay on Pool (the primary). A replica that fails or does not answer
	// within ReplicaTimeout degrades the recall to the primary, with a warning; with
	// Options.ReadYourWrites a recall waits at most ReplicaWait for the replica to replay the
	// user's last write through this Engine, else the primary serves it. Pack.ServedBy says
	// which did.
	Replica        *pgxpool.Pool
	ReplicaTimeout time.Duration // the replica's bound for one statement (0: 5 s)
	ReplicaWait    time.Duration // the longest wait for replay (0: 500 ms)
	// RoutedReads, on a Citus cluster, keeps every recall on the coordinator's routing:
	// the engine then never connects to the workers, and a caller of several scope sets gets
	// ErrManySets. Without it a caller's sets are read on the workers that hold their shards,
	// with Pool's role and credentials at the workers' addresses from Citus's metadata: one
	// set's on its worker, which keeps its plan where the routed statement is planned at every
	// call, several on one worker together, several on several in rounds merged by the engine
	// (docs/SCALING.md). A worker it cannot reach, or a shard moved away, falls back to the
	// routed statement for a caller of one set; for several the recall fails and the next
	// reads the placements again.
	RoutedReads bool

	Embedder embed.Embedder      // nil: the built-in hashing embedder, embed.NewHashing(0)
	Reranker rerank.Reranker     // nil or rerank.None{}: no rerank stage
	Tokens   budget.TokenCounter // nil: the ONNX model's tokenizer when one is configured, else budget.Bytes4
	Settings *statement.Settings // nil: the profile's (Profile); change later with SetSettings
	// Profile names the defaults of Settings and Order: ProfileHashing, ProfileExternal, or ""
	// to pick by the embedder (the hashing profile for the built-in embedder, the external one
	// for any other). Engine.Profile says which was taken.
	Profile string

	// Order is the learned order applied to the statement's candidates before the reranker
	// (package ranker); nil: the profile's. ranker.Off() keeps the statement's fused order.
	Order *ranker.Model

	RerankDepth   int     // candidates the reranker scores (0: 32)
	RerankMin     int     // fewer candidates than this skip reranking (0: 5)
	MMRLambda     float64 // MMR diversity after merit order: 0 off; in (0, 1) lower is more diverse
	ExactEntities bool    // match query entities exactly only (no trigram branch)
	// Expander gives words related to a question's (lexicon.WordNet's Expander), which the
	// BM25 and context lanes add to its terms at Settings.ExpansionWeight; nil, or weight 0:
	// no expansion.
	Expander Expander

	NoAccess      bool          // do not record access
	AccessTimeout time.Duration // bound on the recording transaction (0: access.DefaultTimeout)

	// Strict makes a failing embedder, reranker or access recording an error; by default the
	// stage is dropped and a warning is added to the Pack.
	Strict bool

	MaxBudget      int     // largest budget accepted, in tokens (0: 1,000,000)
	MaxQueryTokens int     // longest query accepted, in tokens (0: 500)
	MinSimilarity  float64 // below this top vector similarity, Abstain.LowSimilarity (0: 0.2)
	MinResults     int     // fewer candidates than this, Abstain.TooFew (0: 3)

	// Now returns the current time (nil: time.Now); tests pin it.
	Now func() time.Time
	// FunctionalPredicates are the relation predicates that hold one value at a time for a
	// subject (lives_in, works_at): a written relation of one, with an evidence memory,
	// supersedes the evidence memories of the subject's relations of that predicate to other
	// objects (nil: none). Relations themselves stay in the graph.
	FunctionalPredicates []string
}

// Engine answers recalls. It is safe for concurrent use; build one per database.
type Engine struct {
	cfg      Config
	settings atomic.Pointer[statement.Settings]
	cache    statement.Cache
	dims     statement.Dims
	recorder *access.Recorder
	writer   *write.Writer
	ownPools []*pgxpool.Pool // the pools Open made, closed by Close
	// workers are the pools on Citus workers, by address, where scope sets' shards are read
	// (workerPool); closed by Close.
	workersMu sync.Mutex
	workers   map[string]*pgxpool.Pool
	// distributed says that a recall found the schema distributed (its text was routed): the
	// recalls after it read one scope set's shards directly (Config.RoutedReads).
	distributed atomic.Bool
	profile     string // the profile's name (Config.Profile)
	// profileWarn says when an embedder of meaning runs with the hashing embedder's fit; each
	// pack carries it.
	profileWarn atomic.Value
	// lastWrite is, per user ID, the primary's WAL position after the user's last write
	// through this Engine (Options.ReadYourWrites).
	lastWrite sync.Map
}

// ErrUnsafeRole is returned by New when the pool's role bypasses row security.
var ErrUnsafeRole = errors.New("recall: the pool's role bypasses row security; connect as recall_runtime")

// ErrSchema is returned by New when the database lacks recall's schema, or holds another
// version of it than this code's: apply the migrations (recall migrate up).
var ErrSchema = errors.New("recall: the database's recall schema is missing or of another version")

// connectError says which of the usual first failures err is.
func connectError(err error) error {
	var pe *pgconn.PgError
	var ce *pgconn.ConnectError
	switch {
	case errors.As(err, &pe) && (pe.Code == "3F000" || pe.Code == "42P01"):
		return fmt.Errorf("%w: %s (apply the migrations: recall migrate up)", ErrSchema, pe.Message)
	case errors.As(err, &pe) && pe.Code == "3D000":
		return fmt.Errorf("recall: no such database: %s", pe.Message)
	case errors.As(err, &pe) && (pe.Code == "28P01" || pe.Code == "28000"):
		return fmt.Errorf("recall: the server refused the role: %s", pe.Message)
	case errors.As(err, &ce):
		return fmt.Errorf("recall: cannot connect to the database: %w", err)
	}
	return fmt.Errorf("recall: checking the pool's role: %w", err)
}

// checkFunctions compares the database's recall functions with this code's function files
// (pg_proc, which every role reads): a body missing or different means the migrations are
// behind (or ahead of) this code.
func checkFunctions(ctx context.Context, pool *pgxpool.Pool) error {
	rows, err := pool.Query(ctx, sqltext.StoredFunctions)
	if err != nil {
		return connectError(err)
	}
	stored := map[string][]string{}
	var name, src string
	if _, err := pgx.ForEachRow(rows, []any{&name, &src}, func() error {
		stored[name] = append(stored[name], src)
		return nil
	}); err != nil {
		return connectError(err)
	}
	stale, err := sqltext.StaleFunctions(stored)
	if err != nil || len(stale) == 0 {
		return err
	}
	names := make([]string, len(stale))
	for i, b := range stale {
		names[i] = b.Name
	}
	return fmt.Errorf("%w: %s differ from this version's (the migrations are behind or ahead: recall migrate up)",
		ErrSchema, strings.Join(slices.Compact(names), ", "))
}

// checkPool: the database answers, the pool's role cannot escape row security, and the
// schema's functions are this version's.
func checkPool(ctx context.Context, pool *pgxpool.Pool) error {
	var unsafe bool
	var role string
	if err := pool.QueryRow(ctx, sqltext.RoleCheck).Scan(&unsafe, &role); err != nil {
		return connectError(err)
	}
	if unsafe {
		return fmt.Errorf("%w (connected as %s)", ErrUnsafeRole, role)
	}
	return checkFunctions(ctx, pool)
}

// distributedSchema reports whether pool's database is a Citus coordinator whose recall
// tables are distributed: then even the engine's first recall of one scope set reads the
// set's shards directly (a schema distributed later is learnt from the first routed recall).
func distributedSchema(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	var d bool
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, nil, nil); err != nil {
			return err
		}
		d = scope.Distributed(tx)
		return nil
	})
	return d, err
}

// New checks cfg and the pool's role and returns an Engine.
func New(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Pool == nil {
		return nil, errors.New("recall: Config.Pool is required")
	}
	if err := checkPool(ctx, cfg.Pool); err != nil {
		return nil, err
	}
	if cfg.Replica != nil {
		if err := checkPool(ctx, cfg.Replica); err != nil {
			return nil, fmt.Errorf("recall: Config.Replica: %w", err)
		}
	}
	if cfg.ReplicaTimeout <= 0 {
		cfg.ReplicaTimeout = 5 * time.Second
	}
	if cfg.ReplicaWait <= 0 {
		cfg.ReplicaWait = 500 * time.Millisecond
	}
	if cfg.AccessPool == nil {
		cfg.AccessPool = cfg.Pool
	}
	if cfg.Embedder == nil {
		h, err := embed.NewHashing(0)
		if err != nil {
			return nil, err
		}
		cfg.Embedder = h
	}
	if d := cfg.Embedder.Dim(); d < 1 || d > statement.MaxDim {
		return nil, fmt.Errorf("recall: embedder %s has %d dimensions; the vector index takes 1 to %d", cfg.Embedder.Name(), d, statement.MaxDim)
	}
	if _, none := cfg.Reranker.(rerank.None); none {
		cfg.Reranker = nil
	}
	if cfg.Tokens == nil {
		// The model's own tokenizer when the embedder (or else the reranker) has one.
		if tc, ok := cfg.Embedder.(budget.TokenCounter); ok {
			cfg.Tokens = tc
		} else if tc, ok := cfg.Reranker.(budget.TokenCounter); ok {
			cfg.Tokens = tc
		} else {
			cfg.Tokens = budget.Bytes4{}
		}
	}
	defaults := []struct {
		v *int
		d int
	}{{&cfg.RerankDepth, 32}, {&cfg.RerankMin, 5}, {&cfg.MaxBudget, 1_000_000}, {&cfg.MaxQueryTokens, 500}, {&cfg.MinResults, 3}}
	for _, x := range defaults {
		if *x.v <= 0 {
			*x.v = x.d
		}
	}
	if cfg.MinSimilarity == 0 {
		cfg.MinSimilarity = 0.2
	}
	if cfg.MMRLambda < 0 || cfg.MMRLambda >= 1 {
		return nil, fmt.Errorf("recall: Config.MMRLambda %v: want 0 (off) or a value in (0, 1)", cfg.MMRLambda)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	e := &Engine{cfg: cfg, recorder: access.New(cfg.AccessPool, cfg.AccessTimeout), writer: &write.Writer{Pool: cfg.Pool, Embedder: cfg.Embedder, Functional: cfg.FunctionalPredicates}}
	if !cfg.RoutedReads {
		d, err := distributedSchema(ctx, cfg.Pool)
		if err != nil {
			return nil, connectError(err)
		}
		e.distributed.Store(d)
	}
	prof, err := ProfileFor(cfg.Profile, cfg.Embedder)
	if err != nil {
		return nil, err
	}
	if e.cfg.Order == nil {
		e.cfg.Order = prof.Order
	}
	e.profile = prof.Name
	s := prof.Settings
	if cfg.Settings != nil {
		s = *cfg.Settings
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("recall: Config.Settings: %w", err)
	}
	e.settings.Store(&s)
	e.profileWarn.Store(profileWarning(e.cfg.Embedder, s, e.cfg.Order))
	return e, nil
}

// Settings returns the statement settings in use.
func (e *Engine) Settings() statement.Settings { return *e.settings.Load() }

// SetSettings replaces the statement settings; the next recall uses them. Every setting is a
// bind parameter, so no cached statement is invalidated. A setting out of range is a
// *statement.SettingError and leaves the settings in use unchanged.
func (e *Engine) SetSettings(s statement.Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	e.settings.Store(&s)
	e.profileWarn.Store(profileWarning(e.cfg.Embedder, s, e.cfg.Order))
	return nil
}

// Profile names the profile whose defaults the engine took (Config.Profile).
func (e *Engine) Profile() string { return e.profile }

// Embedder returns the embedder in use.
func (e *Engine) Embedder() embed.Embedder { return e.cfg.Embedder }

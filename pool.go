package recall

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/telemetry"
	sqltext "github.com/recall-engine/recall/sql"
	"github.com/recall-engine/recall/statement"
)

// PoolOptions size the pool Open makes. Zero values take the defaults.
type PoolOptions struct {
	MaxConns int32 // most connections (0: pgxpool's default, the larger of 4 and the CPUs)
	MinConns int32 // idle connections kept open and warm (0: 2, at most MaxConns)
	// CancelGrace is how long a cancelled query may take to stop on the server after the
	// cancel request before its connection is closed instead (0: 2 s).
	CancelGrace time.Duration
	// ReplicaURL, when set, is the runtime role's URL on a streaming replica: Open makes a
	// second pool there, the same size, for Config.Replica.
	ReplicaURL string
	// SpanQueryText puts each statement's SQL text on its database span (db.query.text) when
	// tracing is on. Off, a span names the operation only. Bind arguments are never recorded.
	SpanQueryText bool
}

// ErrNoURL is returned by Open and PoolConfig for an empty database URL.
var ErrNoURL = errors.New("recall: the database URL is empty: give the runtime role's URL (RECALL_RUNTIME_URL; recall db url --runtime prints the embedded database's)")

// ErrNoVector is returned, wrapped with the database's name, when a connection's database
// has no pgvector extension: recall's migrations need it and pg_trgm created by a superuser.
var ErrNoVector = errors.New("recall: the database has no vector extension: a superuser runs `CREATE EXTENSION vector; CREATE EXTENSION pg_trgm;` in it once, then `recall migrate up` as the owner")

// registerTypes registers pgvector's types on c (every connection's AfterConnect); a database
// without the extension gets ErrNoVector instead of pgvector-go's bare "type not found".
func registerTypes(ctx context.Context, c *pgx.Conn) error {
	err := pgxvec.RegisterTypes(ctx, c)
	if err == nil {
		return nil
	}
	var installed bool
	if qerr := c.QueryRow(ctx, sqltext.VectorInstalled).Scan(&installed); qerr == nil && !installed {
		return fmt.Errorf("%w (database %q)", ErrNoVector, c.Config().Database)
	}
	return err
}

// PoolConfig returns a pgxpool configuration for url that suits recall:
//
//   - pgvector's types are registered on every connection;
//   - a context cancelled during a query sends the server a cancel request, so the
//     abandoned statement stops at once and the connection goes back to the pool. pgx's
//     default closes the connection instead and sends nothing, so the server runs the
//     statement to its end while the pool opens a new, cold connection; under short
//     deadlines that spirals;
//   - MinConns connections stay open.
//
// Open uses it and warms each connection as it is made. A caller who builds its own pool can
// start from it.
func PoolConfig(url string, o PoolOptions) (*pgxpool.Config, error) {
	if strings.TrimSpace(url) == "" {
		// pgx would read an empty URL as "the local socket, as the OS user", whose failure
		// names neither the URL nor the role.
		return nil, ErrNoURL
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("recall: database URL: %w", err)
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	}
	minConns := o.MinConns
	if minConns <= 0 {
		minConns = 2
	}
	cfg.MinConns = min(minConns, cfg.MaxConns)
	grace := o.CancelGrace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: grace}
	}
	cfg.AfterConnect = registerTypes
	// Each round trip is a span under the recall, write or request that made it, when an
	// OpenTelemetry tracer provider is installed (package telemetry; a no-op otherwise).
	cfg.ConnConfig.Tracer = telemetry.DB{QueryText: o.SpanQueryText}
	return cfg, nil
}

// Open connects to url (as the runtime role) with PoolConfig's pool and returns an Engine on
// it (cfg.Pool must be nil; cfg.AccessPool may be set). Every connection the pool makes is
// warmed before its first use: the recall statement and the access statement are prepared
// and the lanes' functions planned, so the first recall on a new connection costs about
// what later ones do (BenchmarkFirstRecall). Close the Engine to close the pool.
func Open(ctx context.Context, url string, cfg Config, o PoolOptions) (*Engine, error) {
	if cfg.Pool != nil {
		return nil, fmt.Errorf("recall: Open makes the pool: Config.Pool must be nil")
	}
	if o.ReplicaURL != "" {
		if cfg.Replica != nil {
			return nil, fmt.Errorf("recall: PoolOptions.ReplicaURL and Config.Replica both set")
		}
		rc, err := PoolConfig(o.ReplicaURL, o)
		if err != nil {
			return nil, fmt.Errorf("recall: replica: %w", err)
		}
		if cfg.Replica, err = pgxpool.NewWithConfig(ctx, rc); err != nil {
			return nil, fmt.Errorf("recall: replica: %w", err)
		}
		replica := cfg.Replica
		e, err := Open(ctx, url, cfg, PoolOptions{MaxConns: o.MaxConns, MinConns: o.MinConns, CancelGrace: o.CancelGrace, SpanQueryText: o.SpanQueryText})
		if err != nil {
			replica.Close()
			return nil, err
		}
		e.ownPools = append(e.ownPools, replica)
		return e, nil
	}
	pc, err := PoolConfig(url, o)
	if err != nil {
		return nil, err
	}
	var ready atomic.Pointer[Engine]
	pc.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if err := registerTypes(ctx, c); err != nil {
			return err
		}
		if e := ready.Load(); e != nil {
			// Best-effort: a connection that fails to warm is used cold (Open has warmed
			// the first connections and returned any failure of the warm-up itself).
			_ = e.warmConn(ctx, c)
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	cfg.Pool = pool
	e, err := New(ctx, cfg)
	if err != nil {
		pool.Close()
		return nil, err
	}
	e.ownPools = append(e.ownPools, pool)
	ready.Store(e)
	if err := e.Warm(ctx); err != nil { // the connections made before the engine existed
		e.Close()
		return nil, err
	}
	return e, nil
}

// Close closes the pools Open made and those it opened on Citus workers; it closes no pool of
// a caller's.
func (e *Engine) Close() {
	for _, p := range e.ownPools {
		p.Close()
	}
	e.workersMu.Lock()
	defer e.workersMu.Unlock()
	for _, p := range e.workers {
		p.Close()
	}
	e.workers = nil
}

// workerPool returns the engine's pool on the Citus worker at host:port, where a caller's
// scope set's shards are read (statement.RunDirect), opened at its first use with Pool's
// settings (its role, credentials and TLS) at that address. Its connections register
// pgvector's types and nothing else: the statement they run is prepared at its first use.
func (e *Engine) workerPool(ctx context.Context, host string, port int) (statement.Beginner, error) {
	key := fmt.Sprintf("%s:%d", host, port)
	e.workersMu.Lock()
	defer e.workersMu.Unlock()
	if p, ok := e.workers[key]; ok {
		return p, nil
	}
	cfg := e.cfg.Pool.Config()
	cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Fallbacks = host, uint16(port), nil
	cfg.AfterConnect = registerTypes
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("recall: a pool on the Citus worker %s: %w", key, err)
	}
	if e.workers == nil {
		e.workers = map[string]*pgxpool.Pool{}
	}
	e.workers[key] = p
	return p, nil
}

// Warm warms the pool's idle connections (up to its MinConns, at least one): each runs the
// recall statements of the default plan (for a question that names a time and for one that
// does not: statement.Plan.For), the lanes' probes and the access statement once, as
// a caller who sees nothing, so later recalls on it find them prepared and planned
// (statement.Warm). Open warms every new connection itself; call Warm after New on a pool of
// your own. It returns the first failure; a connection that fails to warm is still used,
// cold.
func (e *Engine) Warm(ctx context.Context) error {
	n := max(1, int(e.cfg.Pool.Config().MinConns))
	conns := make([]*pgxpool.Conn, 0, n)
	for range n {
		c, err := e.cfg.Pool.Acquire(ctx)
		if err != nil {
			if len(conns) == 0 {
				return fmt.Errorf("recall: warm: %w", err)
			}
			break
		}
		conns = append(conns, c)
	}
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = e.warmConn(ctx, c.Conn())
			c.Release()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// warmQuery exercises every lane: words for bm25 and the context lane, a capitalised name
// for the mention probe, n-grams for the title probe, a date for the temporal lane.
const warmQuery = "What did Alice Martin say about the Harbor Report in May 2023?"

// warmConn warms c (statement.Warm), then the access statement when access is recorded
// through the same pool.
func (e *Engine) warmConn(ctx context.Context, c *pgx.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	vs, err := e.cfg.Embedder.Embed(ctx, []string{warmQuery}, embed.Query)
	if err != nil {
		// An embedder that does not answer yet (a model server starting) is not the
		// database's failure: the recalls will say so in their warnings; the connection is
		// used cold.
		return nil
	}
	now := e.cfg.Now()
	q := statement.Query{Text: warmQuery, Raw: warmQuery, Vector: vs[0], Mentions: statement.Mentions(warmQuery),
		WindowStart: now.AddDate(0, -1, 0), WindowEnd: now}
	dims, err := e.dims.Stored(ctx, c, false) // on c: the pool may have no other connection free
	if err != nil {
		return err
	}
	// The default plan's statement for a question that names a time and for one that does not
	// (statement.Plan.For), the more common.
	plan := e.Settings().Narrow(statement.Maximal)
	for _, p := range []statement.Plan{plan, plan.For(statement.Query{})} {
		st, err := e.cache.Get(statement.Shape{Dim: len(vs[0]), Fuzzy: !e.cfg.ExactEntities, Plan: p})
		if err != nil {
			return fmt.Errorf("recall: warm: %w", err)
		}
		if err := statement.Warm(ctx, c, st, q, e.Settings(), dims); err != nil {
			return fmt.Errorf("recall: %w", err)
		}
	}
	if e.cfg.AccessPool == e.cfg.Pool {
		e.recorder.Warm(ctx, c)
	}
	return nil
}

// Pool is the pool the engine reads through (Config.Pool, or the one Open made).
func (e *Engine) Pool() *pgxpool.Pool { return e.cfg.Pool }

// Ready checks that the database answers, the pool's role is safe and the schema's
// functions are this version's: what New checks, for a server's readiness probe.
func (e *Engine) Ready(ctx context.Context) error { return checkPool(ctx, e.cfg.Pool) }

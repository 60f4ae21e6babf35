// Package server is recall's HTTP API and MCP server (recall serve, recall mcp). Every
// request authenticates with an API key (package keys), and the key is the user: its scopes
// bound what the request reads and writes; a request may narrow them, never widen them.
//
// Routes: the table apiRoutes (openapi.go), from which the mux (Handler) and the OpenAPI
// document served at GET /openapi.json are both made: the /v1 API, the console's static
// files under /console/, the MCP endpoint /mcp (streamable HTTP, stateless), /healthz,
// /readyz and /metrics. Errors are RFC 9457 problem+json.
package server

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/keys"
)

// OpenAPI is the API's OpenAPI 3.1 document, served at /openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

// Config configures a Server. Engine and Keys are required.
type Config struct {
	Engine *recall.Engine
	// Keys is where keys are looked up: the runtime role's pool (recall.api_key).
	Keys keys.DB
	// Pool, when set, is reported in /metrics (connections in use, idle, total).
	Pool *pgxpool.Pool
	// Ready checks the database for /readyz (nil: always ready).
	Ready func(context.Context) error
	// MaxConcurrent bounds recalls and traces running at once; more get 429 (default 16).
	MaxConcurrent int
	// MaxConcurrentWrites bounds writes, deletes and summaries running at once, so that
	// writes cannot take every database connection from recalls; more get 429 (default: a
	// quarter of MaxConcurrent, at least 1).
	MaxConcurrentWrites int
	// KeyRate and KeyBurst give each key its share: a token bucket of KeyBurst requests
	// refilled at KeyRate a second (defaults 50 and 100); a key over it gets 429 with
	// Retry-After, and the other keys do not wait for it.
	KeyRate  float64
	KeyBurst int
	// LookupTimeout bounds a key's lookup (default 2 s): past it, 503.
	LookupTimeout time.Duration
	// MetricsToken, when set, is the bearer token GET /metrics requires (401 without it);
	// empty: /metrics is open, as a Prometheus scrape on a private network expects.
	MetricsToken string
	// RecallTimeout bounds one recall or trace (default 10 s); WriteTimeout one write or
	// delete (default 60 s).
	RecallTimeout, WriteTimeout time.Duration
	// MaxBody bounds a write body in bytes (default 8 MiB); recall, trace and delete bodies
	// are bounded by MaxSmallBody (default 64 KiB).
	MaxBody, MaxSmallBody int64
	// Logger gets one line per request (default: JSON on stderr).
	Logger *slog.Logger
	// Version is reported to MCP clients.
	Version string
}

// Server serves the API.
type Server struct {
	cfg     Config
	slots   chan struct{}
	writes  chan struct{}
	keyRate keyLimiters
	metrics *metrics
	mcp     *mcp.Server
	stdio   atomic.Pointer[string] // the key of recall mcp (stdio), looked up per call
}

// The defaults of Config's fields left zero (or negative).
const (
	MaxConcurrentDefault = 16
	RecallTimeoutDefault = 10 * time.Second
	WriteTimeoutDefault  = 60 * time.Second
	MaxBodyDefault       = 8 << 20
	MaxSmallBodyDefault  = 64 << 10
	KeyRateDefault       = 50
	KeyBurstDefault      = 100
	LookupTimeoutDefault = 2 * time.Second
	VersionDefault       = "dev"
)

// WithDefaults returns cfg with each field left zero (or negative) set to its default: the
// ...Default constants, MaxConcurrentWrites a quarter of MaxConcurrent (at least 1), the
// logger JSON on stderr.
func (cfg Config) WithDefaults() Config {
	cfg.MaxConcurrent = positive(cfg.MaxConcurrent, MaxConcurrentDefault)
	cfg.MaxConcurrentWrites = positive(cfg.MaxConcurrentWrites, max(1, cfg.MaxConcurrent/4))
	cfg.RecallTimeout = positive(cfg.RecallTimeout, RecallTimeoutDefault)
	cfg.WriteTimeout = positive(cfg.WriteTimeout, WriteTimeoutDefault)
	cfg.MaxBody = positive(cfg.MaxBody, MaxBodyDefault)
	cfg.MaxSmallBody = positive(cfg.MaxSmallBody, MaxSmallBodyDefault)
	cfg.KeyRate = positive(cfg.KeyRate, KeyRateDefault)
	cfg.KeyBurst = positive(cfg.KeyBurst, KeyBurstDefault)
	cfg.LookupTimeout = positive(cfg.LookupTimeout, LookupTimeoutDefault)
	cfg.Version = cmp.Or(cfg.Version, VersionDefault)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	return cfg
}

// positive is v when it is above zero, else d.
func positive[T int | int64 | float64 | time.Duration](v, d T) T {
	if v > 0 {
		return v
	}
	return d
}

// New checks cfg and returns a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Engine == nil || cfg.Keys == nil {
		return nil, errors.New("server: Config.Engine and Config.Keys are required")
	}
	cfg = cfg.WithDefaults()
	s := &Server{cfg: cfg, slots: make(chan struct{}, cfg.MaxConcurrent), writes: make(chan struct{}, cfg.MaxConcurrentWrites),
		keyRate: keyLimiters{rate: rate.Limit(cfg.KeyRate), burst: cfg.KeyBurst}, metrics: newMetrics(cfg.Pool)}
	s.mcp = s.newMCP()
	return s, nil
}

// Serve serves on ln until ctx is done, then shuts down gracefully: it stops accepting,
// lets in-flight requests finish (at most grace), and returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      s.cfg.WriteTimeout + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.cfg.Logger.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.cfg.Logger.Info("shutting down", "grace", grace.String())
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	return err
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if err := s.cfg.Ready(ctx); err != nil {
			info(r).err = err
			p := problem(http.StatusServiceUnavailable, "not-ready", err.Error())
			p.retryAfter = 5
			p.write(w)
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain")
	_, _ = w.Write([]byte("ready\n"))
}

func (s *Server) recall(w http.ResponseWriter, r *http.Request, k keys.Key) {
	s.recallLike(w, r, k, func(ctx context.Context, u recall.User, req *RecallRequest) (any, *recall.Timings, error) {
		pack, err := s.cfg.Engine.Recall(ctx, u, req.Query, req.Budget, req.options())
		if err != nil {
			return nil, nil, err
		}
		return pack, &pack.Timings, nil
	})
}

func (s *Server) trace(w http.ResponseWriter, r *http.Request, k keys.Key) {
	s.recallLike(w, r, k, func(ctx context.Context, u recall.User, req *RecallRequest) (any, *recall.Timings, error) {
		t, err := s.cfg.Engine.Trace(ctx, u, req.Query, req.Budget, req.options())
		if err != nil {
			return nil, nil, err
		}
		return traceResponse(t), &t.Pack.Timings, nil
	})
}

// recallLike is a recall or a trace: decode, narrow the key's scopes, take a slot (or 429),
// run under the recall timeout, answer.
func (s *Server) recallLike(w http.ResponseWriter, r *http.Request, k keys.Key,
	run func(context.Context, recall.User, *RecallRequest) (any, *recall.Timings, error)) {
	var req RecallRequest
	userOf := func() (recall.User, *Problem) { return userFor(k, req.Scopes, req.Label) }
	s.readLike(w, r, &req, userOf, func(ctx context.Context, u recall.User) (any, error) {
		out, timings, err := run(ctx, u, &req)
		if err == nil {
			s.metrics.stages(*timings)
			info(r).timings = timings
		}
		return out, err
	})
}

// readLike is a recall, a trace, a browse or a memory's read: decode the body (of at most
// MaxSmallBody bytes) into req, make the user of the key and the decoded request (userOf),
// take a recall slot (or 429), run under the recall timeout, answer.
func (s *Server) readLike(w http.ResponseWriter, r *http.Request, req any, userOf func() (recall.User, *Problem),
	run func(context.Context, recall.User) (any, error)) {
	ctx, cancel := deadline(w, r, s.timeout(readCall))
	defer cancel()
	if p := decode(w, r, s.cfg.MaxSmallBody, req); p != nil {
		p.write(w)
		return
	}
	if err := ctx.Err(); err != nil { // the body took the whole time
		s.fail(w, r, err)
		return
	}
	user, p := userOf()
	if p != nil {
		p.write(w)
		return
	}
	var out any
	if err := s.call(ctx, readCall, func(ctx context.Context) (err error) { out, err = run(ctx, user); return err }); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) write(w http.ResponseWriter, r *http.Request, k keys.Key) {
	var req WriteRequest
	s.writeLike(w, r, k, s.cfg.MaxBody, &req, &req.Scopes, func(ctx context.Context, u recall.User) (any, error) {
		return s.cfg.Engine.Write(ctx, u, req)
	})
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, k keys.Key) {
	var req DeleteRequest
	s.writeLike(w, r, k, s.cfg.MaxSmallBody, &req, &req.Scopes, func(ctx context.Context, u recall.User) (any, error) {
		n, err := s.cfg.Engine.Delete(ctx, u, req.Scopes, req.IDs)
		return DeleteResponse{Deleted: n}, err
	})
}

func (s *Server) prune(w http.ResponseWriter, r *http.Request, k keys.Key) {
	var req PruneRequest
	s.writeLike(w, r, k, s.cfg.MaxSmallBody, &req, &req.Scopes, func(ctx context.Context, u recall.User) (any, error) {
		var at time.Time
		if req.At != nil {
			at = *req.At
		}
		n, err := s.cfg.Engine.Prune(ctx, u, req.Scopes, at)
		return PruneResponse{Deleted: n}, err
	})
}

func (s *Server) supersede(w http.ResponseWriter, r *http.Request, k keys.Key) {
	var req SupersedeRequest
	s.writeLike(w, r, k, s.cfg.MaxSmallBody, &req, &req.Scopes, func(ctx context.Context, u recall.User) (any, error) {
		n, err := s.cfg.Engine.Supersede(ctx, u, req.Scopes, req.By, req.Supersedes, req.At)
		return SupersedeResponse{Superseded: n}, err
	})
}

func (s *Server) summarize(w http.ResponseWriter, r *http.Request, k keys.Key) {
	var req SummarizeRequest
	s.writeLike(w, r, k, s.cfg.MaxSmallBody, &req, &req.Scopes, func(ctx context.Context, u recall.User) (any, error) {
		res, err := s.cfg.Engine.Summarize(ctx, u, recall.SummarizeOptions{Scopes: req.Scopes, By: req.By, MaxTokens: req.MaxTokens})
		if res.Groups == nil {
			res.Groups = map[string]int{}
		}
		return SummarizeResponse{Groups: res.Groups, Written: res.Written, Pruned: res.Pruned, Covered: res.Covered}, err
	})
}

// writeLike is a write, a delete or a summarize: decode the body (of at most limit bytes) into req, check
// its scopes (read once it is decoded) against the key's write scopes, run under the write
// timeout, answer.
func (s *Server) writeLike(w http.ResponseWriter, r *http.Request, k keys.Key, limit int64, req any, scopes *[]string,
	run func(context.Context, recall.User) (any, error)) {
	ctx, cancel := deadline(w, r, s.timeout(writeCall))
	defer cancel()
	if p := decode(w, r, limit, req); p != nil {
		p.write(w)
		return
	}
	if err := ctx.Err(); err != nil { // the body took the whole time
		s.fail(w, r, err)
		return
	}
	user, p := writerFor(k, *scopes)
	if p != nil {
		p.write(w)
		return
	}
	var out any
	if err := s.call(ctx, writeCall, func(ctx context.Context) (err error) { out, err = run(ctx, user); return err }); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// deadline is a request's context bounded by timeout from its arrival, so that reading and
// decoding its body count against the timeout as running it does: the connection's read
// deadline is set to the same instant (a slow upload stops there; decode answers 504), and
// a body decoded past it is not run.
func deadline(w http.ResponseWriter, r *http.Request, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	if d, ok := ctx.Deadline(); ok {
		_ = http.NewResponseController(w).SetReadDeadline(d) // not every writer can (a test recorder): the context still bounds the run
	}
	return ctx, cancel
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	info(r).err = err
	s.metrics.errors.WithLabelValues(errorKind(err)).Inc()
	problemFor(err).write(w)
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/keys"
	"github.com/recall-engine/recall/server"
)

// serverFlags are the flags recall serve and recall mcp share.
type serverFlags struct {
	maxConcurrent, maxConns     int
	maxWrites, keyBurst         int
	keyRate                     float64
	metricsTokenEnv             string
	maxBody                     int64
	recallTimeout, writeTimeout time.Duration
	shutdownGrace               time.Duration
	logLevel                    string
	replicaURL                  string
	engine                      cli.EngineFlags
}

// envFlags maps each flag that has one to its environment variable.
var envFlags = map[string]string{
	"addr": "RECALL_ADDR", "max-concurrent": "RECALL_MAX_CONCURRENT", "max-conns": "RECALL_MAX_CONNS",
	"max-body": "RECALL_MAX_BODY", "recall-timeout": "RECALL_RECALL_TIMEOUT",
	"max-concurrent-writes": "RECALL_MAX_CONCURRENT_WRITES", "key-rate": "RECALL_KEY_RATE", "key-burst": "RECALL_KEY_BURST",
	"write-timeout": "RECALL_WRITE_TIMEOUT", "log-level": "RECALL_LOG_LEVEL", "replica-url": "RECALL_REPLICA_URL",
}

func addServerFlags(fs *flag.FlagSet) *serverFlags {
	f := &serverFlags{}
	fs.IntVar(&f.maxConcurrent, "max-concurrent", server.MaxConcurrentDefault, "recalls and traces at once; more get 429 (RECALL_MAX_CONCURRENT)")
	fs.IntVar(&f.maxConns, "max-conns", 0, "database connections (RECALL_MAX_CONNS; 0: max(4, CPUs))")
	fs.IntVar(&f.maxWrites, "max-concurrent-writes", 0, "writes, deletes and summaries at once; more get 429 (RECALL_MAX_CONCURRENT_WRITES; 0: a quarter of --max-concurrent)")
	fs.Float64Var(&f.keyRate, "key-rate", server.KeyRateDefault, "requests a second one key may make on average; more get 429 (RECALL_KEY_RATE)")
	fs.IntVar(&f.keyBurst, "key-burst", server.KeyBurstDefault, "requests one key may make at once (RECALL_KEY_BURST)")
	fs.StringVar(&f.metricsTokenEnv, "metrics-token-env", "RECALL_METRICS_TOKEN", "the environment variable holding the bearer token /metrics requires (unset or empty: /metrics is open)")
	fs.Int64Var(&f.maxBody, "max-body", server.MaxBodyDefault, "largest write body in bytes (RECALL_MAX_BODY)")
	fs.DurationVar(&f.recallTimeout, "recall-timeout", server.RecallTimeoutDefault, "bound on one recall or trace (RECALL_RECALL_TIMEOUT)")
	fs.DurationVar(&f.writeTimeout, "write-timeout", server.WriteTimeoutDefault, "bound on one write or delete (RECALL_WRITE_TIMEOUT)")
	fs.DurationVar(&f.shutdownGrace, "shutdown-grace", 30*time.Second, "on SIGTERM, how long in-flight requests may take to finish")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error (RECALL_LOG_LEVEL)")
	fs.StringVar(&f.replicaURL, "replica-url", "", "a streaming replica's URL as recall_runtime: recalls run there, writes and access on the primary (RECALL_REPLICA_URL)")
	f.engine.Register(fs)
	return f
}

// parseServer sets the flags of fs from their environment variables, then from args (which
// win), and refuses positional arguments and values that are not positive.
func (m *Main) parseServer(fs *flag.FlagSet, f *serverFlags, args []string, usage string) error {
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, usage+"\n\nflags:")
		fs.PrintDefaults()
	}
	for name, env := range envFlags {
		if v := m.Getenv(env); v != "" && fs.Lookup(name) != nil {
			if err := fs.Set(name, v); err != nil {
				return fmt.Errorf("%w: %s=%q: %v", cli.ErrUsage, env, v, err)
			}
		}
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		fs.Usage()
		return fmt.Errorf("%w: unexpected %q", cli.ErrUsage, pos[0])
	}
	switch {
	case f.maxConcurrent <= 0:
		return fmt.Errorf("%w: --max-concurrent %d: want at least 1", cli.ErrUsage, f.maxConcurrent)
	case f.maxWrites < 0 || f.keyRate <= 0 || f.keyBurst <= 0:
		return fmt.Errorf("%w: --max-concurrent-writes must be 0 or more, --key-rate and --key-burst positive", cli.ErrUsage)
	case f.maxConns < 0:
		return fmt.Errorf("%w: --max-conns %d: want 0 (the default) or more", cli.ErrUsage, f.maxConns)
	case f.maxBody <= 0, f.recallTimeout <= 0, f.writeTimeout <= 0, f.shutdownGrace <= 0:
		return fmt.Errorf("%w: --max-body, --recall-timeout, --write-timeout and --shutdown-grace must be positive", cli.ErrUsage)
	}
	return nil
}

// openServer connects (migrating the schema) and builds the server on recall.Open's pool.
func (m *Main) openServer(ctx context.Context, f *serverFlags) (*server.Server, func(), error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, nil, fmt.Errorf("%w: --log-level %q: want debug, info, warn or error", cli.ErrUsage, f.logLevel)
	}
	cfg, err := f.engine.Config(ctx, m.Getenv)
	if err != nil {
		return nil, nil, err
	}
	c, err := m.Connect(ctx, true)
	if err != nil {
		return nil, nil, err
	}
	runtimeURL := c.RuntimeURL
	c.Close() // the engine's own pool serves the keys too
	e, err := recall.Open(ctx, runtimeURL, cfg, recall.PoolOptions{MaxConns: int32(f.maxConns), ReplicaURL: f.replicaURL,
		SpanQueryText: strings.EqualFold(m.Getenv("RECALL_OTEL_DB_QUERY_TEXT"), "true")})
	if err != nil {
		return nil, nil, err
	}
	s, err := server.New(server.Config{Engine: e, Keys: e.Pool(), Pool: e.Pool(), Ready: e.Ready,
		MetricsToken:  m.Getenv(f.metricsTokenEnv),
		MaxConcurrent: f.maxConcurrent, MaxConcurrentWrites: f.maxWrites, KeyRate: f.keyRate, KeyBurst: f.keyBurst, RecallTimeout: f.recallTimeout, WriteTimeout: f.writeTimeout, MaxBody: f.maxBody,
		Logger: slog.New(slog.NewJSONHandler(m.Stderr, &slog.HandlerOptions{Level: level})), Version: version})
	if err != nil {
		e.Close()
		return nil, nil, err
	}
	return s, e.Close, nil
}

// serve: recall serve [--addr HOST:PORT] [flags]
func (m *Main) serve(ctx context.Context, args []string) error {
	fs := m.Flags("serve")
	addr := fs.String("addr", "127.0.0.1:7411", "where to listen (RECALL_ADDR)")
	f := addServerFlags(fs)
	if err := m.parseServer(fs, f, args, "usage: recall serve [flags]\n\nThe HTTP API (/v1/...) and MCP (/mcp) with API keys (recall keys create)."); err != nil {
		return err
	}
	s, closeAll, err := m.openServer(ctx, f)
	if err != nil {
		return err
	}
	defer closeAll()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", *addr, err)
	}
	fmt.Fprintf(m.Stderr, "recall serve: listening on http://%s (Ctrl-C or SIGTERM to stop)\n", ln.Addr())
	return s.Serve(ctx, ln, f.shutdownGrace)
}

// mcp: recall mcp (MCP over stdio; the key in RECALL_API_KEY)
func (m *Main) mcp(ctx context.Context, args []string) error {
	fs := m.Flags("mcp")
	f := addServerFlags(fs)
	if err := m.parseServer(fs, f, args, "usage: RECALL_API_KEY=KEY recall mcp [flags]\n\nMCP over stdin and stdout, as the key's user (recall keys create)."); err != nil {
		return err
	}
	key := strings.TrimSpace(m.Getenv("RECALL_API_KEY"))
	if key == "" {
		return fmt.Errorf("%w: RECALL_API_KEY is not set: create a key with recall keys create", cli.ErrUsage)
	}
	s, closeAll, err := m.openServer(ctx, f)
	if err != nil {
		return err
	}
	defer closeAll()
	if err := s.ServeStdio(ctx, key); err != nil {
		if errors.Is(err, keys.ErrInvalid) {
			return fmt.Errorf("RECALL_API_KEY: %w", err)
		}
		return err
	}
	return nil
}

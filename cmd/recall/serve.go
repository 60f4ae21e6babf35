package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/keys"
	"github.com/recall-engine/recall/server"
)

// envOr is the environment variable name's value, else def.
func (m *Main) envOr(name, def string) string {
	if v := m.Getenv(name); v != "" {
		return v
	}
	return def
}

// serverFlags are the flags recall serve and recall mcp share, each defaulting to its
// environment variable.
type serverFlags struct {
	maxConcurrent *int
	recallTimeout *time.Duration
	writeTimeout  *time.Duration
	maxBody       *int64
	maxConns      *int
	shutdownGrace *time.Duration
	logLevel      *string
}

func (m *Main) addServerFlags(fs interface {
	Int(string, int, string) *int
	Int64(string, int64, string) *int64
	Duration(string, time.Duration, string) *time.Duration
	String(string, string, string) *string
}) (*serverFlags, error) {
	f := &serverFlags{}
	envInt := func(name string, def int) (int, error) {
		v := m.Getenv(name)
		if v == "" {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%s=%q: want a positive integer", name, v)
		}
		return n, nil
	}
	envDur := func(name string, def time.Duration) (time.Duration, error) {
		v := m.Getenv(name)
		if v == "" {
			return def, nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("%s=%q: want a positive duration such as 10s", name, v)
		}
		return d, nil
	}
	mc, err := envInt("RECALL_MAX_CONCURRENT", 16)
	if err != nil {
		return nil, err
	}
	conns, err := envInt("RECALL_MAX_CONNS", 0)
	if err != nil {
		return nil, err
	}
	body, err := envInt("RECALL_MAX_BODY", 8<<20)
	if err != nil {
		return nil, err
	}
	rt, err := envDur("RECALL_RECALL_TIMEOUT", 10*time.Second)
	if err != nil {
		return nil, err
	}
	wt, err := envDur("RECALL_WRITE_TIMEOUT", 60*time.Second)
	if err != nil {
		return nil, err
	}
	f.maxConcurrent = fs.Int("max-concurrent", mc, "recalls and traces at once; more get 429 (RECALL_MAX_CONCURRENT)")
	f.maxConns = fs.Int("max-conns", conns, "database connections (RECALL_MAX_CONNS; 0: max(4, CPUs))")
	f.maxBody = fs.Int64("max-body", int64(body), "largest write body in bytes (RECALL_MAX_BODY)")
	f.recallTimeout = fs.Duration("recall-timeout", rt, "bound on one recall or trace (RECALL_RECALL_TIMEOUT)")
	f.writeTimeout = fs.Duration("write-timeout", wt, "bound on one write or delete (RECALL_WRITE_TIMEOUT)")
	f.shutdownGrace = fs.Duration("shutdown-grace", 30*time.Second, "on SIGTERM, how long in-flight requests may take to finish")
	f.logLevel = fs.String("log-level", m.envOr("RECALL_LOG_LEVEL", "info"), "debug, info, warn or error (RECALL_LOG_LEVEL)")
	return f, nil
}

// open connects (migrating the schema) and builds the server.
func (m *Main) openServer(ctx context.Context, f *serverFlags) (*server.Server, func(), error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(*f.logLevel)); err != nil {
		return nil, nil, fmt.Errorf("%w: --log-level %q: want debug, info, warn or error", cli.ErrUsage, *f.logLevel)
	}
	logger := slog.New(slog.NewJSONHandler(m.Stderr, &slog.HandlerOptions{Level: level}))
	c, err := m.Connect(ctx, true)
	if err != nil {
		return nil, nil, err
	}
	e, err := recall.Open(ctx, c.RuntimeURL, recall.Config{}, recall.PoolOptions{MaxConns: int32(*f.maxConns)})
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	s, err := server.New(server.Config{Engine: e, Keys: c.Runtime, Pool: e.Pool(), Ready: e.Ready,
		MaxConcurrent: *f.maxConcurrent, RecallTimeout: *f.recallTimeout, WriteTimeout: *f.writeTimeout,
		MaxBody: *f.maxBody, Logger: logger, Version: version})
	if err != nil {
		e.Close()
		c.Close()
		return nil, nil, err
	}
	return s, func() { e.Close(); c.Close() }, nil
}

const version = "0.1.0-dev"

// serve: recall serve [--addr HOST:PORT] [flags]
func (m *Main) serve(ctx context.Context, args []string) error {
	fs := m.Flags("serve")
	addr := fs.String("addr", m.envOr("RECALL_ADDR", "127.0.0.1:7411"), "where to listen (RECALL_ADDR)")
	f, err := m.addServerFlags(fs)
	if err != nil {
		return err
	}
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall serve [flags]\n\nThe HTTP API (/v1/...) and MCP (/mcp) with API keys (recall keys create).\n\nflags:")
		fs.PrintDefaults()
	}
	if pos, err := cli.Parse(fs, args); err != nil {
		return err
	} else if len(pos) != 0 {
		fs.Usage()
		return fmt.Errorf("%w: unexpected %q", cli.ErrUsage, pos[0])
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
	return s.Serve(ctx, ln, *f.shutdownGrace)
}

// mcp: recall mcp (MCP over stdio; the key in RECALL_API_KEY)
func (m *Main) mcp(ctx context.Context, args []string) error {
	fs := m.Flags("mcp")
	f, err := m.addServerFlags(fs)
	if err != nil {
		return err
	}
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: RECALL_API_KEY=KEY recall mcp [flags]\n\nMCP over stdin and stdout, as the key's user (recall keys create).\n\nflags:")
		fs.PrintDefaults()
	}
	if pos, err := cli.Parse(fs, args); err != nil {
		return err
	} else if len(pos) != 0 {
		fs.Usage()
		return fmt.Errorf("%w: unexpected %q", cli.ErrUsage, pos[0])
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

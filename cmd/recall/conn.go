package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/recall-engine/recall/migrations"
	"github.com/recall-engine/recall/scripts"
)

// The database: RECALL_DATABASE_URL names a database where recall's roles exist, connecting
// as recall_owner (or a superuser) for migrations; the engine connects as recall_runtime, by
// RECALL_RUNTIME_URL or else the same URL with the user recall_runtime (no password). When
// RECALL_DATABASE_URL is unset, the embedded default: a private PostgreSQL for this OS user, in
// RECALL_HOME (default $XDG_DATA_HOME/recall, or /var/lib/recall for root), started on first
// use on a free local port and stopped by "recall db stop".

// dataDir is where the embedded server keeps its data.
func (m *Main) dataDir() string {
	if d := m.Getenv("RECALL_HOME"); d != "" {
		return d
	}
	if os.Geteuid() == 0 {
		// The server runs as the postgres user, which cannot enter /root.
		return "/var/lib/recall"
	}
	if d := m.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "recall")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "recall")
	}
	return filepath.Join(home, ".local", "share", "recall")
}

// dbScript runs the embedded db.sh with verb, returning its last line of output.
func (m *Main) dbScript(ctx context.Context, verb string) (string, error) {
	tmp, err := os.MkdirTemp("", "recall-scripts-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) //nolint:errcheck // a temporary directory
	sh, err := scripts.Unpack(tmp)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "bash", sh, verb)
	cmd.Env = append(os.Environ(), "RECALL_PG_DIR="+filepath.Join(m.dataDir(), "pg"), "RECALL_PG_DURABLE=1")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = m.Stderr
	err = cmd.Run()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && verb == "status" && ee.ExitCode() == 3 {
			return last, nil
		}
		return "", fmt.Errorf("embedded database: db.sh %s: %w", verb, err)
	}
	return last, nil
}

// conn is an open database: the owner's for migrations, the runtime role's for the engine.
type conn struct {
	ownerURL string
	owner    *pgxpool.Pool
	runtime  *pgxpool.Pool
}

func (c *conn) close() {
	c.owner.Close()
	c.runtime.Close()
}

// connect opens the database, starting the embedded server when none is configured. With
// migrate, pending migrations are applied first.
func (m *Main) connect(ctx context.Context, migrate bool) (*conn, error) {
	ownerURL := m.Getenv("RECALL_DATABASE_URL")
	if ownerURL == "" {
		admin, err := m.dbScript(ctx, "start")
		if err != nil {
			return nil, err
		}
		if ownerURL, err = embeddedDatabase(ctx, admin); err != nil {
			return nil, err
		}
	}
	c := &conn{ownerURL: ownerURL}
	runtimeURL := m.Getenv("RECALL_RUNTIME_URL")
	if runtimeURL == "" {
		u, err := url.Parse(ownerURL)
		if err != nil {
			return nil, fmt.Errorf("RECALL_DATABASE_URL: %w", err)
		}
		u.User = url.User("recall_runtime")
		runtimeURL = u.String()
	}
	var err error
	if c.owner, err = pool(ctx, ownerURL); err != nil {
		return nil, err
	}
	if c.runtime, err = pool(ctx, runtimeURL); err != nil {
		c.owner.Close()
		return nil, err
	}
	if migrate {
		if err := m.migrateUp(ctx, c.ownerURL, false); err != nil {
			c.close()
			return nil, err
		}
	}
	return c, nil
}

// embeddedDatabase creates database recall on the embedded server (owned by recall_owner,
// with the extensions a superuser must create) and returns recall_owner's URL for it.
func embeddedDatabase(ctx context.Context, admin string) (string, error) {
	cfg, err := pgx.ParseConfig(admin)
	if err != nil {
		return "", err
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return "", fmt.Errorf("embedded database: %w", err)
	}
	defer c.Close(context.Background()) //nolint:errcheck // closing a session
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname = 'recall'`).Scan(&n); err != nil {
		return "", err
	}
	if n == 0 {
		if _, err := c.Exec(ctx, `CREATE DATABASE recall OWNER recall_owner`); err != nil {
			return "", fmt.Errorf("embedded database: %w", err)
		}
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", err
	}
	u.Path = "/recall"
	su := *u
	dc, err := pgx.Connect(ctx, su.String())
	if err != nil {
		return "", err
	}
	defer dc.Close(context.Background()) //nolint:errcheck // closing a session
	if _, err := dc.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm`); err != nil {
		return "", fmt.Errorf("embedded database: extensions: %w", err)
	}
	u.User = url.User("recall_owner")
	return u.String(), nil
}

// pool opens a pool on dsn with pgvector's types registered.
func pool(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	cfg.AfterConnect = pgxvec.RegisterTypes
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := p.Ping(ctx); err != nil {
		p.Close()
		return nil, fmt.Errorf("database %s: %w", redact(dsn), err)
	}
	return p, nil
}

func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// sqlDB opens a database/sql handle for goose.
func sqlDB(dsn string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	return stdlib.OpenDB(*cfg), nil
}

// migrateUp applies pending migrations, printing each when verbose.
func (m *Main) migrateUp(ctx context.Context, dsn string, verbose bool) error {
	db, err := sqlDB(dsn)
	if err != nil {
		return err
	}
	defer db.Close() //nolint:errcheck // closing a handle
	p, err := migrations.NewProvider(db)
	if err != nil {
		return err
	}
	res, err := p.Up(ctx)
	if err != nil {
		return err
	}
	if verbose {
		for _, r := range res {
			fmt.Fprintf(m.Stdout, "applied %s (%v)\n", r.Source.Path, r.Duration.Round(1e6))
		}
		if len(res) == 0 {
			fmt.Fprintln(m.Stdout, "up to date")
		}
	}
	return nil
}

package cli

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
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/migrations"
	"github.com/recall-engine/recall/scripts"
	"github.com/recall-engine/recall/sql"
)

// The database: RECALL_DATABASE_URL names a database where recall's roles exist, connecting
// as recall_owner (or a superuser) for migrations; the engine connects as recall_runtime, by
// RECALL_RUNTIME_URL or else the same URL with the user recall_runtime (no password). When
// RECALL_DATABASE_URL is unset, the embedded default: a private PostgreSQL for this OS user, in
// RECALL_HOME (default $XDG_DATA_HOME/recall, or /var/lib/recall for root), started on first
// use on a free local port and stopped by "recall db stop".

// DataDir is where the embedded server keeps its data.
func (env Env) DataDir() string {
	if d := env.Getenv("RECALL_HOME"); d != "" {
		return d
	}
	if os.Geteuid() == 0 {
		// The server runs as the postgres user, which cannot enter /root.
		return "/var/lib/recall"
	}
	if d := env.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "recall")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "recall")
	}
	return filepath.Join(home, ".local", "share", "recall")
}

// DBScript runs the embedded db.sh with verb (start, stop, status, url), returning its last
// line of output.
func (env Env) DBScript(ctx context.Context, verb string) (string, error) {
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
	cmd.Env = append(os.Environ(), "RECALL_PG_DIR="+filepath.Join(env.DataDir(), "pg"), "RECALL_PG_DURABLE=1")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = env.Stderr
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

// Conn is an open database: the owner's pool for migrations and maintenance, the runtime
// role's for the engine.
type Conn struct {
	OwnerURL   string // the owner's: migrations and maintenance
	RuntimeURL string // the runtime role's: what recall.Open and recall.New take
	Owner      *pgxpool.Pool
	Runtime    *pgxpool.Pool
}

// Close closes both pools.
func (c *Conn) Close() {
	c.Owner.Close()
	c.Runtime.Close()
}

// Connect opens database recall, starting the embedded server when none is configured.
// With migrate, pending migrations are applied first.
func (env Env) Connect(ctx context.Context, migrate bool) (*Conn, error) {
	return env.ConnectDatabase(ctx, "recall", migrate)
}

// ConnectDatabase opens database name: on the embedded server it is created when missing
// (with the extensions); with RECALL_DATABASE_URL set, name "recall" is that URL's database
// and any other name is created next to it by the URL's role (which needs CREATEDB, and the
// extensions installed in template1 or superuser rights).
func (env Env) ConnectDatabase(ctx context.Context, name string, migrate bool) (*Conn, error) {
	ownerURL := env.Getenv("RECALL_DATABASE_URL")
	var err error
	switch {
	case ownerURL == "":
		if u, ok := env.running(ctx, name, migrate); ok {
			ownerURL, migrate = u, false
			break
		}
		admin, err := env.DBScript(ctx, "start")
		if err != nil {
			return nil, err
		}
		if ownerURL, err = ensureDatabase(ctx, admin, name, "recall_owner"); err != nil {
			return nil, err
		}
	case name != "recall":
		if ownerURL, err = ensureDatabase(ctx, ownerURL, name, ""); err != nil {
			return nil, err
		}
	}
	c := &Conn{OwnerURL: ownerURL}
	runtimeURL := env.Getenv("RECALL_RUNTIME_URL")
	if runtimeURL == "" || name != "recall" {
		u, err := url.Parse(ownerURL)
		if err != nil {
			return nil, fmt.Errorf("RECALL_DATABASE_URL: %w", err)
		}
		u.User = url.User("recall_runtime")
		runtimeURL = u.String()
	}
	c.RuntimeURL = runtimeURL
	if c.Owner, err = Pool(ctx, ownerURL); err != nil {
		return nil, err
	}
	if c.Runtime, err = Pool(ctx, runtimeURL); err != nil {
		c.Owner.Close()
		return nil, err
	}
	if migrate {
		if err := env.MigrateUp(ctx, c.OwnerURL, false); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// running is the fast path of the embedded server: when the server the port file names
// answers, database name exists and (with migrate) its schema is current, it returns the
// owner's URL, and the command skips db.sh (install checks, roles) and the migrations, which
// cost most of a second. Anything else takes the full path.
func (env Env) running(ctx context.Context, name string, migrate bool) (string, bool) {
	b, err := os.ReadFile(filepath.Join(env.DataDir(), "pg", "port"))
	if err != nil {
		return "", false
	}
	port := strings.TrimSpace(string(b))
	u := url.URL{Scheme: "postgres", User: url.User("recall_owner"), Host: "127.0.0.1:" + port, Path: "/" + name,
		RawQuery: "sslmode=disable&connect_timeout=2"}
	db, err := SQLDB(u.String())
	if err != nil {
		return "", false
	}
	defer db.Close() //nolint:errcheck // closing a handle
	if err := db.PingContext(ctx); err != nil {
		return "", false
	}
	if migrate {
		if ok, err := migrations.Current(ctx, db); err != nil || !ok {
			return "", false
		}
	}
	u.RawQuery = "sslmode=disable"
	return u.String(), true
}

// ensureDatabase creates database name on the server of url (connected as its user) when
// missing, owned by owner ("" : the connecting role), with pgvector and pg_trgm, and returns
// the URL of that database for owner (or the same user).
func ensureDatabase(ctx context.Context, dsn, name, owner string) (string, error) {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", fmt.Errorf("database server %s: %w", Redact(dsn), err)
	}
	defer c.Close(context.Background()) //nolint:errcheck // closing a session
	var n int
	if err := c.QueryRow(ctx, sqltext.DatabaseExists, pgx.StrictNamedArgs{"name": name}).Scan(&n); err != nil {
		return "", err
	}
	if n == 0 {
		ids := map[string]string{"database": name, "owner": owner}
		_, err := c.Exec(ctx, sqltext.Identifiers(sqltext.CreateDatabase, ids))
		switch {
		case err == nil && owner != "":
			if _, err := c.Exec(ctx, sqltext.Identifiers(sqltext.DatabaseOwner, ids)); err != nil {
				return "", fmt.Errorf("database %s: owner: %w", name, err)
			}
		case err != nil && !duplicateDatabase(err):
			return "", fmt.Errorf("creating database %s: %w", name, err)
		}
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	dc, err := pgx.Connect(ctx, u.String())
	if err != nil {
		return "", err
	}
	defer dc.Close(context.Background()) //nolint:errcheck // closing a session
	// Serialised with other creators of this database's extensions (sql/admin/extensions.sql).
	if err := pgx.BeginFunc(ctx, dc, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, sqltext.Extensions)
		return err
	}); err != nil {
		return "", fmt.Errorf("database %s: extensions: %w", name, err)
	}
	if owner != "" {
		u.User = url.User(owner)
	}
	return u.String(), nil
}

// duplicateDatabase reports a CREATE DATABASE that lost a race with another creator.
func duplicateDatabase(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "42P04" || (pe.Code == "23505" && pe.ConstraintName == "pg_database_datname_index"))
}

// Pool opens a pool on dsn configured as recall.PoolConfig does (pgvector's types, cancelled
// queries cancelled on the server), keeping no idle connections: a command is short.
func Pool(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	cfg, err := recall.PoolConfig(dsn, recall.PoolOptions{})
	if err != nil {
		return nil, err
	}
	cfg.MinConns = 0
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := p.Ping(ctx); err != nil {
		p.Close()
		return nil, fmt.Errorf("database %s: %w", Redact(dsn), err)
	}
	return p, nil
}

// Redact returns dsn without its password.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// SQLDB opens a database/sql handle for goose.
func SQLDB(dsn string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	return stdlib.OpenDB(*cfg), nil
}

// MigrateUp applies pending migrations, printing each when verbose.
func (env Env) MigrateUp(ctx context.Context, dsn string, verbose bool) error {
	db, err := SQLDB(dsn)
	if err != nil {
		return err
	}
	defer db.Close() //nolint:errcheck // closing a handle
	res, err := migrations.Up(ctx, db)
	if err != nil {
		return err
	}
	if verbose {
		for _, r := range res.Migrations {
			fmt.Fprintf(env.Stdout, "applied %s (%v)\n", r.Source.Path, r.Duration.Round(1e6))
		}
		for _, f := range res.Functions {
			fmt.Fprintf(env.Stdout, "applied sql/%s\n", f)
		}
		if len(res.Migrations)+len(res.Functions) == 0 {
			fmt.Fprintln(env.Stdout, "up to date")
		}
	}
	return nil
}

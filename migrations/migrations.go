// Package migrations holds recall's schema as goose migrations, embedded in the binary, and
// applies them through goose's Provider API with a Postgres session lock, so concurrent
// migrators (several CI jobs, several engine replicas) never interleave. Up then applies the
// function files of package sqltext (sql/): the database functions, their triggers and the
// probes' indexes, which are defined once, in those files, and re-applied when they change.
//
// The migrations are a baseline (00001) and, from the first tagged release on, the changes
// after it, append-only. sql/schema.sql shows the schema they build.
//
// Run migrations as the owner role (recall_owner in the development server), never as
// recall_runtime: the runtime role has no DDL rights by design.
package migrations

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/recall-engine/recall/sql"
)

// FS holds the SQL migrations, named NNNNN_topic.sql.
//
//go:embed *.sql
var FS embed.FS

// VersionTable is the goose version table, in the database's default schema.
const VersionTable = "recall_schema_version"

// NewProvider returns a goose Provider over FS for db, locked with a Postgres advisory
// session lock. Its Up applies the migrations only: use Up, which applies the function files
// too.
func NewProvider(db *sql.DB, opts ...goose.ProviderOption) (*goose.Provider, error) {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, fmt.Errorf("migrations: session locker: %w", err)
	}
	base := []goose.ProviderOption{
		goose.WithSessionLocker(locker),
		goose.WithTableName(VersionTable),
		goose.WithDisableGlobalRegistry(true),
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, FS, append(base, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// ErrNewerDatabase is returned by Up for a database migrated further than this build's
// migrations go: by a newer recall, or by a development build from before the baseline
// (whose migrations 00002-00020 it replaced). Such a database must be migrated by the build
// that made it, or recreated.
var ErrNewerDatabase = errors.New("migrations: the database was migrated by another build of recall")

// Result is what Up did: the migrations and the function files it applied.
type Result struct {
	Migrations []*goose.MigrationResult
	Functions  []string
}

// Up applies every pending migration, then every function file that changed since it was
// last applied (or whose functions were changed in the database by hand).
func Up(ctx context.Context, db *sql.DB) (Result, error) {
	p, err := NewProvider(db)
	if err != nil {
		return Result{}, err
	}
	sources := p.ListSources()
	if v, err := p.GetDBVersion(ctx); err == nil && len(sources) > 0 && v > sources[len(sources)-1].Version {
		return Result{}, fmt.Errorf("%w: the database is at version %d, this build knows up to %d",
			ErrNewerDatabase, v, sources[len(sources)-1].Version)
	}
	// The common case, nothing to do, is found without taking goose's lock.
	if ok, err := current(ctx, p, db); err == nil && ok {
		return Result{}, nil
	}
	res, err := p.Up(ctx)
	if err != nil {
		return Result{Migrations: res}, err
	}
	fns, err := ApplyFunctions(ctx, db)
	if err != nil {
		return Result{Migrations: res, Functions: fns}, err
	}
	// Memories written before passages (00015) are split by the function files just applied.
	if _, err := db.ExecContext(ctx, sqltext.PassagesSplit); err != nil {
		return Result{Migrations: res, Functions: fns}, fmt.Errorf("migrations: splitting the memories written before passages: %w", err)
	}
	// What a migration noted for a rebuild of its lexical data (00014) is rebuilt by the
	// function files just applied: on one server nothing else reads those notes.
	if _, err := db.ExecContext(ctx, sqltext.BM25Flush); err != nil {
		return Result{Migrations: res, Functions: fns}, fmt.Errorf("migrations: rebuilding the lexical data the migrations noted: %w", err)
	}
	return Result{Migrations: res, Functions: fns}, nil
}

// Current reports whether db needs nothing from Up: no migration pending and no function file
// changed since it was applied. It takes no lock and writes nothing (a command's fast path).
func Current(ctx context.Context, db *sql.DB) (bool, error) {
	p, err := NewProvider(db)
	if err != nil {
		return false, err
	}
	return current(ctx, p, db)
}

func current(ctx context.Context, p *goose.Provider, db *sql.DB) (bool, error) {
	pending, err := p.HasPending(ctx)
	if err != nil || pending {
		return false, err
	}
	drift, err := check(ctx, db)
	return err == nil && len(drift) == 0, err
}

// Hash returns a hex SHA-256 over the names and contents of all migrations and the rendered
// function files. Two databases migrated from the same hash have the same schema; the test
// harness keys templates on it.
func Hash() string {
	names, err := fs.Glob(FS, "*.sql")
	if err != nil {
		panic(err) // a malformed constant pattern; cannot happen
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := FS.ReadFile(n)
		if err != nil {
			panic(err) // embedded files are always readable
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	for _, f := range sqltext.FunctionFiles {
		text, err := sqltext.Function(f)
		if err != nil {
			panic(err) // embedded templates, rendered by a test
		}
		fmt.Fprintf(h, "%s\x00%d\x00%s", f, len(text), text)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func fileHash(text string) string {
	s := sha256.Sum256([]byte(text))
	return hex.EncodeToString(s[:])
}

// Latest is the version of the newest migration this code has (its file's number).
func Latest() int64 {
	names, err := fs.Glob(FS, "*.sql")
	if err != nil {
		panic(err) // a malformed constant pattern; cannot happen
	}
	var latest int64
	for _, n := range names {
		var v int64
		if _, err := fmt.Sscanf(n, "%d_", &v); err == nil {
			latest = max(latest, v)
		}
	}
	return latest
}

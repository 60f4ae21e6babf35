// Package migrations holds recall's schema as goose migrations, embedded in the binary, and
// applies them through goose's Provider API with a Postgres session lock, so concurrent
// migrators (several CI jobs, several engine replicas) never interleave.
//
// Run migrations as the owner role (recall_owner in the development server), never as
// recall_runtime: the runtime role has no DDL rights by design.
package migrations

import (
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// FS holds the SQL migrations, named NNNNN_topic.sql.
//
//go:embed *.sql
var FS embed.FS

// VersionTable is the goose version table, in the database's default schema.
const VersionTable = "recall_schema_version"

// NewProvider returns a goose Provider over FS for db, locked with a Postgres advisory
// session lock.
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

// Hash returns a hex SHA-256 over the names and contents of all migrations. Two databases
// migrated from the same hash have the same schema; the test harness keys templates on it.
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
	return hex.EncodeToString(h.Sum(nil))
}

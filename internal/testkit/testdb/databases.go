package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/migrations"
)

// createEmpty creates an empty database owned by recall_owner with the extensions installed
// (pgvector is not a trusted extension: the admin installs it, as a DBA would).
func createEmpty(ctx context.Context, admin *pgx.ConnConfig, name string) error {
	err := withAdmin(ctx, admin, admin.Database, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s OWNER %s", pgx.Identifier{name}.Sanitize(), OwnerRole))
		return err
	})
	if err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return withAdmin(ctx, admin, name, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm")
		return err
	})
}

func dropDatabase(ctx context.Context, admin *pgx.ConnConfig, name string) error {
	return withAdmin(ctx, admin, admin.Database, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", pgx.Identifier{name}.Sanitize()))
		return err
	})
}

// dropStale drops templates, shared and benchmark databases of other migration hashes, best effort:
// one still in use by a concurrent run of an older checkout stays.
func dropStale(ctx context.Context, c *pgx.Conn, current string) {
	hash := current[len("recall_tpl_"):]
	rows, err := c.Query(ctx, `SELECT datname FROM pg_database
		WHERE datname ~ '^recall_(tpl|shared|bench)_' AND right(datname, 16) <> $1`, hash)
	if err != nil {
		return
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, n := range names {
		id := pgx.Identifier{n}.Sanitize()
		_, _ = c.Exec(ctx, "ALTER DATABASE "+id+" WITH IS_TEMPLATE false")
		_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+id)
	}
}

// template returns the name of the migrated template for the current migrations, building
// it once per server under an advisory lock.
func template(ctx context.Context, admin *pgx.ConnConfig) (string, error) {
	name := "recall_tpl_" + migrations.Hash()[:16]
	err := withAdmin(ctx, admin, admin.Database, func(c *pgx.Conn) error {
		if _, err := c.Exec(ctx, "SELECT pg_advisory_lock(hashtext('recall.testdb.template'))"); err != nil {
			return err
		}
		defer c.Exec(context.Background(), "SELECT pg_advisory_unlock(hashtext('recall.testdb.template'))") //nolint:errcheck // the session ends right after
		var ready bool
		err := c.QueryRow(ctx, "SELECT datistemplate FROM pg_database WHERE datname = $1", name).Scan(&ready)
		if err == nil && ready {
			return nil
		}
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		dropStale(ctx, c, name)
		// Not there, or left half-built by an interrupted run: build it from scratch.
		if err := dropDatabase(ctx, admin, name); err != nil {
			return err
		}
		if err := createEmpty(ctx, admin, name); err != nil {
			return err
		}
		if err := Migrate(ctx, admin, name); err != nil {
			return fmt.Errorf("migrating template %s: %w", name, err)
		}
		_, err = c.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s WITH IS_TEMPLATE true ALLOW_CONNECTIONS false", name))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("testdb: template: %w", err)
	}
	return name, nil
}

// shared opens the shared database of the current migrations, cloning it once per server.
func shared(ctx context.Context, admin *pgx.ConnConfig) (*DB, error) {
	name := "recall_shared_" + migrations.Hash()[:16]
	err := withAdmin(ctx, admin, admin.Database, func(c *pgx.Conn) error {
		if _, err := c.Exec(ctx, "SELECT pg_advisory_lock(hashtext('recall.testdb.shared'))"); err != nil {
			return err
		}
		defer c.Exec(context.Background(), "SELECT pg_advisory_unlock(hashtext('recall.testdb.shared'))") //nolint:errcheck // the session ends right after
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
			return err
		}
		if n == 1 {
			return nil
		}
		db, err := clone(ctx, admin, name)
		if err != nil {
			return err
		}
		db.Close()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("testdb: shared database: %w", err)
	}
	return open(ctx, admin, name)
}

// Close closes both pools.
func (db *DB) Close() {
	db.Owner.Close()
	db.Runtime.Close()
}

func randomName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func clone(ctx context.Context, admin *pgx.ConnConfig, name string) (*DB, error) {
	templateOnce.Do(func() { templateName, templateErr = template(ctx, admin) })
	if templateErr != nil {
		return nil, templateErr
	}
	err := withAdmin(ctx, admin, admin.Database, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s OWNER %s",
			pgx.Identifier{name}.Sanitize(), pgx.Identifier{templateName}.Sanitize(), OwnerRole))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("testdb: clone %s: %w", templateName, err)
	}
	return open(ctx, admin, name)
}

func open(ctx context.Context, admin *pgx.ConnConfig, name string) (*DB, error) {
	owner, err := NewPool(ctx, admin, OwnerRole, name)
	if err != nil {
		return nil, err
	}
	runtime, err := NewPool(ctx, admin, RuntimeRole, name)
	if err != nil {
		owner.Close()
		return nil, err
	}
	return &DB{Name: name, Owner: owner, Runtime: runtime, admin: admin}, nil
}

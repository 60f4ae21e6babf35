// Package scope validates scope sets and applies a caller's scopes to a transaction. Every
// transaction the engine runs as a caller starts with Apply: row-level security reads the
// scopes it sets (migrations/00001_baseline.sql writes the policies; docs/SECURITY.md says the rule).
package scope

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall/sql"
)

// Limits on a scope set, the same as recall.is_scope_set in the schema.
const (
	MaxScopes  = 64
	MaxNameLen = 128
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_.:/@-]+$`)

// Error is returned for a scope set that breaks a limit. Field names the offending input
// (for example "read_scopes[2]").
type Error struct {
	Field   string
	Value   string
	Problem string
	Limit   int // the limit broken, 0 when the problem is not a limit
}

func (e *Error) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Problem)
	}
	return fmt.Sprintf("%s %q: %s", e.Field, e.Value, e.Problem)
}

// Normalize validates names and returns them sorted without duplicates, the form rows store.
// An empty set is valid here (a caller may have no write scopes); rows need at least one.
func Normalize(field string, names []string) ([]string, error) {
	if len(names) > MaxScopes {
		return nil, &Error{Field: field, Problem: fmt.Sprintf("%d scopes, the limit is %d", len(names), MaxScopes), Limit: MaxScopes}
	}
	for i, n := range names {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case n == "":
			return nil, &Error{Field: f, Problem: "empty scope name"}
		case len(n) > MaxNameLen:
			return nil, &Error{Field: f, Value: n[:16] + "...", Problem: fmt.Sprintf("scope name of %d bytes, the limit is %d", len(n), MaxNameLen), Limit: MaxNameLen}
		case !nameRE.MatchString(n):
			return nil, &Error{Field: f, Value: n, Problem: "scope names use only letters, digits and _.:/@-"}
		}
	}
	out := append(make([]string, 0, len(names)), names...)
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Setting is a server setting applied with SET LOCAL semantics next to the scopes; one of
// OneServer is applied only on a server without Citus.
type Setting struct {
	Name, Value string
	OneServer   bool
}

// citusKey and distributedKey mark, in a connection's CustomData, whether its server runs
// Citus and whether recall's tables are distributed there.
const (
	citusKey       = "recall/scope.citus"
	distributedKey = "recall/scope.distributed"
)

// Apply sets the caller's read and write scopes for the rest of tx (SET LOCAL semantics:
// they vanish at commit or rollback), turns JIT off for it, and applies settings, all in one
// round trip. Both sets must already be normalized; write must be a subset of read, so a
// caller never writes what it cannot see.
//
// On a Citus coordinator the settings must reach the workers, which set_config's do not:
// there they are applied by SET LOCAL with Citus's propagation on (recall.apply_scopes). The
// first Apply on a connection asks which server it is, and on Citus whether recall's tables
// are distributed, and keeps the answers with the connection (a database distributed later
// is seen by new connections).
func Apply(ctx context.Context, tx pgx.Tx, read, write []string, settings ...Setting) error {
	if err := checkWrite(read, write); err != nil {
		return err
	}
	data := tx.Conn().PgConn().CustomData()
	citus, known := data[citusKey].(bool)
	if !known {
		if err := tx.QueryRow(ctx, sqltext.IsCitus).Scan(&citus); err != nil {
			return fmt.Errorf("scope: apply: %w", err)
		}
		distributed := false
		if citus {
			if err := tx.QueryRow(ctx, sqltext.IsDistributed).Scan(&distributed); err != nil {
				return fmt.Errorf("scope: apply: %w", err)
			}
		}
		data[citusKey], data[distributedKey] = citus, distributed
	}
	stmt := sqltext.ScopeApply
	if citus {
		stmt = sqltext.ScopeApplyCitus
	}
	if _, err := tx.Exec(ctx, stmt, applyArgs(citus, read, write, settings)...); err != nil {
		return fmt.Errorf("scope: apply: %w", err)
	}
	return nil
}

// Queue is Apply for a read that is sent with its statement in one batch and so in one
// round trip: it queues on b what Apply runs, making the batch's implicit transaction (the
// statements up to its one Sync) read only too. It queues nothing and returns false when
// conn is not known to be one server without Citus (Apply has not run on it yet, or it
// runs Citus, whose settings take more than one statement): the caller then begins a
// transaction and calls Apply.
func Queue(conn *pgx.Conn, b *pgx.Batch, read, write []string, settings ...Setting) (bool, error) {
	if err := checkWrite(read, write); err != nil {
		return false, err
	}
	if !OneServer(conn) {
		return false, nil
	}
	settings = append(slices.Clip(settings), Setting{Name: "transaction_read_only", Value: "on"})
	b.Queue(sqltext.ScopeApply, applyArgs(false, read, write, settings)...)
	return true, nil
}

// OneServer reports whether conn is known to be one server without Citus: Apply has run on
// it and found no Citus.
func OneServer(conn *pgx.Conn) bool {
	citus, known := conn.PgConn().CustomData()[citusKey].(bool)
	return known && !citus
}

// checkWrite returns an *Error when write is not a subset of read.
func checkWrite(read, write []string) error {
	for _, w := range write {
		if _, ok := slices.BinarySearch(read, w); !ok {
			return &Error{Field: "write_scopes", Value: w, Problem: "a write scope must also be a read scope"}
		}
	}
	return nil
}

// applyArgs returns the arguments of sqltext.ScopeApply (and ScopeApplyCitus): the scopes,
// and the settings' names and values, JIT off first; a OneServer setting only when not citus.
func applyArgs(citus bool, read, write []string, settings []Setting) []any {
	if read == nil {
		read = []string{}
	}
	if write == nil {
		write = []string{}
	}
	names := []string{"jit"}
	values := []string{"off"}
	for _, s := range settings {
		if s.OneServer && citus {
			continue
		}
		names = append(names, s.Name)
		values = append(values, s.Value)
	}
	return []any{read, write, names, values}
}

// Owed reports whether a writing transaction set up by Apply leaves derived data for
// Flush: on a Citus coordinator, whose row trigger only notes the memories a transaction
// changes (recall.bm25_dirty), yes; on one server, whose statement triggers kept it in the
// transaction, no.
func Owed(tx pgx.Tx) bool { return Citus(tx) }

// Citus reports whether tx, set up by Apply, runs on a Citus coordinator (its recall tables
// distributed or not).
func Citus(tx pgx.Tx) bool {
	citus, _ := tx.Conn().PgConn().CustomData()[citusKey].(bool)
	return citus
}

// Distributed reports whether tx, set up by Apply, runs on a Citus coordinator whose recall
// tables are distributed (migrations.Distribute): reads must then be routed by scope set.
func Distributed(tx pgx.Tx) bool {
	d, _ := tx.Conn().PgConn().CustomData()[distributedKey].(bool)
	return d
}

// Flush rebuilds the lexical data of the memories that writing transactions noted
// (recall.bm25_flush, sql/write/bm25.sql), in a transaction of its own, after the writer's
// has committed: on Citus, the owner's function may not touch placements the caller's
// transaction changed. Until it commits, those memories are stored but not yet in the
// lexical lanes; a flush that does not happen (the process stops) is done by the next one,
// which rebuilds everything noted. Call it when Owed said so.
func Flush(ctx context.Context, pool *pgxpool.Pool) error {
	if _, err := pool.Exec(ctx, sqltext.BM25Flush); err != nil {
		return fmt.Errorf("scope: flush: %w", err)
	}
	return nil
}

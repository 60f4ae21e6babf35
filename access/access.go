// Package access records what a recall surfaced: after the read transaction has committed,
// one short second transaction stamps last_accessed and increments access_count of every
// packed memory in recall.memory_access, under the caller's write scopes. Those columns feed
// the recency and frequency terms of the next recall's fusion.
package access

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/sql"
)

// Recorder stamps accesses through a pool that connects as the runtime role; with a read
// replica serving recall, give it a pool on the primary.
type Recorder struct {
	pool    *pgxpool.Pool
	timeout time.Duration
}

// DefaultTimeout bounds one recording transaction.
const DefaultTimeout = 2 * time.Second

// New returns a Recorder on pool; timeout bounds each recording (0: DefaultTimeout).
func New(pool *pgxpool.Pool, timeout time.Duration) *Recorder {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Recorder{pool: pool, timeout: timeout}
}

// ErrNoWriteScopes is returned when the caller has no write scope, so nothing can be stamped.
var ErrNoWriteScopes = errors.New("access: the caller has no write scopes")

// Record stamps ids as accessed at at, once each however often they repeat, in one
// transaction under the caller's scopes (read and write must be normalized); on a Citus
// cluster by one statement per scope set of the ids, each routed to its set's shard. It returns how
// many memories were stamped: fewer than the distinct ids when some lie outside the caller's
// write scopes or were deleted meanwhile.
func (r *Recorder) Record(ctx context.Context, read, write []string, ids []int64, at time.Time) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	if len(write) == 0 {
		return 0, ErrNoWriteScopes
	}
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	// The bound is on the recording, not on the wait for a connection of a busy pool.
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("access: record %d memories: %w", len(ids), err)
	}
	defer conn.Release()
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	var n int64
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, read, write); err != nil {
			return err
		}
		sets := [][]string{nil}
		if scope.Distributed(tx) {
			rows, err := tx.Query(ctx, sqltext.RecordSets, pgx.StrictNamedArgs{"ids": ids})
			if err != nil {
				return err
			}
			if sets, err = pgx.CollectRows(rows, pgx.RowTo[[]string]); err != nil {
				return err
			}
		}
		for _, set := range sets {
			tag, err := tx.Exec(ctx, sqltext.RecordAccess, pgx.StrictNamedArgs{"ids": ids, "at": at, "set": set})
			if err != nil {
				return err
			}
			n += tag.RowsAffected()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("access: record %d memories: %w", len(ids), err)
	}
	return n, nil
}

// Warm prepares the recording statement on c: it runs it for no memories, as a caller with
// no scopes, in a transaction it rolls back. Errors are ignored: a cold connection works.
func (r *Recorder) Warm(ctx context.Context, c *pgx.Conn) {
	_ = pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, nil, nil); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sqltext.RecordAccess, pgx.StrictNamedArgs{"ids": []int64{}, "at": time.Time{}, "set": nil}); err != nil {
			return err
		}
		return errRollback
	})
}

var errRollback = errors.New("access: warm-up rolls back")

package recall

import (
	"context"
	"fmt"
	"time"

	"github.com/recall-engine/recall/sql"
	"github.com/recall-engine/recall/statement"
)

// Who served a recall's statement (Pack.ServedBy).
const (
	ServedByPrimary = "primary"
	ServedByReplica = "replica"
)

// noteWrite remembers the primary's WAL position after user's write, for read-your-writes.
// It runs only with a replica; a failure leaves the last position noted (the next recall
// with ReadYourWrites may then read an older snapshot than the write, which is what a
// recall without it does).
func (e *Engine) noteWrite(ctx context.Context, user User) {
	if e.cfg.Replica == nil {
		return
	}
	var pos int64
	if err := e.cfg.Pool.QueryRow(ctx, sqltext.WALPosition).Scan(&pos); err == nil {
		e.lastWrite.Store(user.ID, pos)
	}
}

// replicaFor decides whether the replica serves this recall: "" when it does, else why the
// primary does. With read-your-writes it waits, at most ReplicaWait, for the replica to
// replay the user's last write.
func (e *Engine) replicaFor(ctx context.Context, user User, ryw bool) (string, error) {
	if e.cfg.Replica == nil {
		return "no replica configured", nil
	}
	if !ryw {
		return "", nil
	}
	v, ok := e.lastWrite.Load(user.ID)
	if !ok {
		return "", nil
	}
	want := v.(int64) //nolint:forcetypeassert // only int64 is stored
	deadline := time.Now().Add(e.cfg.ReplicaWait)
	for wait := time.Millisecond; ; wait = min(2*wait, 20*time.Millisecond) {
		var pos int64
		if err := e.cfg.Replica.QueryRow(ctx, sqltext.ReplayPosition).Scan(&pos); err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("recall: %w", ctx.Err())
			}
			return "", err
		}
		if pos >= want {
			return "", nil
		}
		if time.Now().After(deadline) {
			return fmt.Sprintf("the replica had not replayed the user's last write after %v", e.cfg.ReplicaWait), nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("recall: %w", ctx.Err())
		case <-time.After(wait):
		}
	}
}

// runOnReplica runs the statement on the replica within ReplicaTimeout. An error the
// caller's context did not cause is returned for the caller to fall back on.
func (e *Engine) runOnReplica(ctx context.Context, r *run, s statement.Settings) ([]statement.Candidate, string, error) {
	rctx, cancel := context.WithTimeout(ctx, e.cfg.ReplicaTimeout)
	defer cancel()
	return statement.RunText(rctx, e.cfg.Replica, statement.Scopes{Read: r.req.who.read, Write: r.req.who.write}, r.req.st, r.req.q, s)
}

package statement

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recall-engine/recall/internal/scope"
)

// Workers returns a pool of the runtime role on the worker at host:port (the engine keeps
// one per worker).
type Workers func(ctx context.Context, host string, port int) (Beginner, error)

// placements keeps each scope set's placement (a Placement by placementKey) once read: shards move
// only when an operator moves them, and a read that finds its shard gone drops the entry.
var placements sync.Map

// placementKey names set's placement in the coordinator's database that tx is on: two
// clusters, or two databases of one, place a set apart.
func placementKey(tx pgx.Tx, set []string) string {
	c := tx.Conn().Config()
	return fmt.Sprintf("%s:%d/%s\x00%s", c.Host, c.Port, c.Database, strings.Join(set, "\x00"))
}

// RunDirect is RunText that, for a caller of one scope set on a distributed Citus schema,
// reads the set's shards on their worker (RunOnShard; shard.go says why), which keeps its
// plan where the routed statement is planned at every call. The set and its placement are
// read on the coordinator first. Anywhere else (one server, a caller of no set or several),
// and when the shard read fails for the cluster's reasons (the worker cannot be reached, the
// shard is no longer there), it is RunText: the routed statement through the coordinator.
func RunDirect(ctx context.Context, pool Beginner, workers Workers, who Scopes, st *Statement, q Query, s Settings) ([]Candidate, string, error) {
	set, key, place, ok, err := directPlace(ctx, pool, who)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return RunText(ctx, pool, who, st, q, s)
	}
	wp, err := workers(ctx, place.Host, place.Port)
	if err == nil {
		var out []Candidate
		var text string
		if out, text, err = RunOnShard(ctx, wp, who, st, set, place, q, s); err == nil {
			return out, text, nil
		}
	}
	if ctx.Err() != nil || !clusterFailure(err) {
		return nil, "", err
	}
	placements.Delete(key)
	return RunText(ctx, pool, who, st, q, s)
}

// directPlace reads, on the coordinator as the caller, the one scope set the caller sees and
// where its shards are; ok is false when the read is not for a set's shards (the schema not
// distributed, no set or several seen).
func directPlace(ctx context.Context, pool Beginner, who Scopes) (set []string, key string, place Placement, ok bool, err error) {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, "", Placement{}, false, interpretError(ctx, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read only
	if err := scope.Apply(ctx, tx, who.Read, who.Write); err != nil {
		return nil, "", Placement{}, false, interpretError(ctx, err)
	}
	if !scope.Distributed(tx) {
		return nil, "", Placement{}, false, nil
	}
	set, err = OneSet(ctx, tx)
	if errors.Is(err, ErrManySets) || err == nil && len(set) == 0 {
		return nil, "", Placement{}, false, nil
	}
	if err != nil {
		return nil, "", Placement{}, false, err
	}
	key = placementKey(tx, set)
	if p, found := placements.Load(key); found {
		return set, key, p.(Placement), true, nil
	}
	if place, err = PlacementOf(ctx, tx, set); err != nil {
		return nil, "", Placement{}, false, err
	}
	placements.Store(key, place)
	return set, key, place, true, nil
}

// clusterFailure reports whether err is the cluster's rather than the read's: the worker
// could not be reached or dropped the connection, or the set's shards are not where the
// placement said (refused by the shard probes, 55000, or a shard table gone, 42P01).
func clusterFailure(err error) bool {
	var ce *pgconn.ConnectError
	var pe *pgconn.PgError
	switch {
	case errors.Is(err, ErrShardMoved), errors.As(err, &ce):
		return true
	case errors.As(err, &pe):
		return pe.Code == "55000" || pe.Code == "42P01" || strings.HasPrefix(pe.Code, "08")
	}
	return pgconn.SafeToRetry(err)
}

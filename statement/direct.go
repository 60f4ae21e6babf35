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
	sqltext "github.com/recall-engine/recall/sql"
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
// plan where the routed statement is planned at every call; for a caller of several sets, in
// rounds on their workers, Settings.SetsPerText sets a text (RunSpread, spread.go), or, when
// all of them are on one worker and no more than SetsPerText, by one text there over their
// shards' union (RunOnShards, shards.go). The sets and their placements are read on the coordinator first.
// Anywhere else (one server, a caller of no set), and when the read of one set's shards
// fails for the cluster's reasons (the worker cannot be reached, a shard is no longer there),
// it is RunText: the routed statement through the coordinator. When a read of several sets
// fails so, their placements are dropped and the error returned: the next call reads them
// again.
func RunDirect(ctx context.Context, pool Beginner, workers Workers, who Scopes, st *Statement, q Query, s Settings) ([]Candidate, string, error) {
	sets, keys, places, ok, err := directPlace(ctx, pool, who)
	if err != nil {
		return nil, "", err
	}
	if !ok || workers == nil {
		return RunText(ctx, pool, who, st, q, s)
	}
	var out []Candidate
	var text string
	if len(sets) > s.SetsPerText || apart(places) {
		// Sets on several workers, or more than one text of a worker's names: the rounds of
		// spread.go.
		if out, text, err = RunSpread(ctx, pool, workers, who, st, sets, places, q, s); err == nil {
			return out, text, nil
		}
	} else {
		wp, err2 := workers(ctx, places[0].Host, places[0].Port)
		if err = err2; err == nil {
			if out, text, err = RunOnShards(ctx, wp, who, st, sets, places, q, s); err == nil {
				return out, text, nil
			}
		}
	}
	if ctx.Err() != nil || !clusterFailure(err) {
		return nil, "", err
	}
	for _, key := range keys {
		placements.Delete(key)
	}
	if len(sets) > 1 {
		// The sets may have moved: the next call reads their placements again.
		return nil, "", err
	}
	return RunText(ctx, pool, who, st, q, s)
}

// apart reports whether places name more than one worker.
func apart(places []Placement) bool {
	for _, p := range places[1:] {
		if p.Host != places[0].Host || p.Port != places[0].Port {
			return true
		}
	}
	return false
}

// directPlace reads, on the coordinator as the caller, the scope sets the caller sees and
// where their shards are; ok is false when the read is not for the workers (the schema not
// distributed, or no set seen).
func directPlace(ctx context.Context, pool Beginner, who Scopes) (sets [][]string, keys []string, places []Placement, ok bool, err error) {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, nil, nil, false, interpretError(ctx, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read only
	if err := scope.Apply(ctx, tx, who.Read, who.Write); err != nil {
		return nil, nil, nil, false, interpretError(ctx, err)
	}
	if !scope.Distributed(tx) {
		return nil, nil, nil, false, nil
	}
	// Every set at once (one read across the shards, as OneSet's): a caller of one set reads
	// one row either way, and one of several needs them all.
	if sets, err = visibleSets(ctx, tx, sqltext.VisibleSetsAll); err != nil {
		return nil, nil, nil, false, err
	}
	if len(sets) == 0 {
		return nil, nil, nil, false, nil
	}
	for _, set := range sets {
		key := placementKey(tx, set)
		p, found := placements.Load(key)
		if !found {
			place, err := PlacementOf(ctx, tx, set)
			if err != nil {
				return nil, nil, nil, false, err
			}
			placements.Store(key, place)
			p = place
		}
		keys, places = append(keys, key), append(places, p.(Placement))
	}
	return sets, keys, places, true, nil
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

package statement

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"text/template"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/dberr"
	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/sql"
)

// Scopes are the caller's normalized read and write scopes.
type Scopes struct{ Read, Write []string }

// ErrTimeout is returned by Run when the statement ran past Settings.Timeout (the engine's
// one timeout sentinel, dberr.ErrTimeout).
var ErrTimeout = dberr.ErrTimeout

// Session returns the SET LOCAL settings a recall transaction runs with: HNSW search depth
// and iterative scans, generic plans, index reads, the trigram threshold, and the statement
// timeout.
func (s Settings) Session() []scope.Setting {
	out := []scope.Setting{
		{Name: "hnsw.ef_search", Value: strconv.Itoa(max(s.EfSearch, s.VectorK))},
		{Name: "hnsw.iterative_scan", Value: "relaxed_order"},
		// Every tunable is a bind, so one generic plan per connection serves every call:
		// planning the maximal statement anew costs more than most of its lanes.
		{Name: "plan_cache_mode", Value: "force_generic_plan"},
		// Every table is read by an index: on a small table the planner prefers to read it
		// whole, checking row security on every row, the other scopes' too (the entities of
		// the output's names and the sources: 1.5 ms of a LoCoMo question's 12), and the
		// work then grows with rows the caller cannot see (TestStatementScansNoTableWhole).
		// On one server only: on Citus the forms of several scope sets read unions of shard
		// tables, and with sequential scans off their plans ran past the statement timeout
		// (TestCitusManySets).
		{Name: "enable_seqscan", Value: "off", OneServer: true},
		{Name: "pg_trgm.similarity_threshold", Value: strconv.FormatFloat(min(s.MentionFloor, s.TitleFloor), 'f', -1, 64)},
	}
	if s.Timeout > 0 {
		out = append(out, scope.Setting{Name: "statement_timeout", Value: strconv.FormatInt(s.Timeout.Milliseconds(), 10)})
	}
	return out
}

// Beginner starts transactions: a *pgxpool.Pool, or one *pgx.Conn (to warm a connection).
type Beginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// Run executes st for q in one read-only transaction as the caller: scopes and settings with
// SET LOCAL, then the statement. pool must connect as the runtime role.
func Run(ctx context.Context, pool Beginner, who Scopes, st *Statement, q Query, s Settings) ([]Candidate, error) {
	out, _, err := RunText(ctx, pool, who, st, q, s)
	return out, err
}

// RunText is Run that also returns the text that ran: st.SQL on one server, its routed form
// on a distributed Citus schema (Statement.Routed), for a trace to show. From a pool, on a
// connection known to be one server, the scopes and the statement go in one round trip
// (runPipelined).
func RunText(ctx context.Context, pool Beginner, who Scopes, st *Statement, q Query, s Settings) ([]Candidate, string, error) {
	if a, ok := pool.(acquirer); ok {
		c, err := a.Acquire(ctx)
		if err != nil {
			return nil, "", interpretError(ctx, err)
		}
		defer c.Release()
		out, done, err := runPipelined(ctx, c.Conn(), who, st, q, s)
		if done {
			return out, st.SQL, err
		}
		pool = c
	}
	out, sqls, err := runEach(ctx, pool, who, []*Statement{st}, q, s, routeOnCitus)
	if err != nil {
		return nil, "", err
	}
	return out[0], sqls[0], nil
}

// RunEach executes several statements for q one after the other in one read-only
// transaction as the caller (one snapshot), returning each one's candidates. It is how the
// lanes run as separate queries, for comparison with the single statement.
func RunEach(ctx context.Context, pool Beginner, who Scopes, sts []*Statement, q Query, s Settings) ([][]Candidate, error) {
	out, _, err := runEach(ctx, pool, who, sts, q, s, routeOnCitus)
	return out, err
}

// texts returns the text each statement runs as in tx, set up as the caller.
type texts func(ctx context.Context, tx pgx.Tx, sts []*Statement) ([]string, error)

// runEach is RunEach, with the texts that ran, as textsOf chooses them (routeOnCitus, or a
// shard read's).
func runEach(ctx context.Context, pool Beginner, who Scopes, sts []*Statement, q Query, s Settings, textsOf texts) ([][]Candidate, []string, error) {
	if q.Now.IsZero() {
		q.Now = time.Now()
	}
	scan := func(r pgx.CollectableRow) (Candidate, error) { return scanCandidate(r, q.Now, q.asOf()) }
	args := make([]pgx.NamedArgs, len(sts))
	for i, st := range sts {
		a, err := st.Args(q, s)
		if err != nil {
			return nil, nil, err
		}
		args[i] = a
	}
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, nil, interpretError(ctx, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after Commit

	if err := scope.Apply(ctx, tx, who.Read, who.Write, s.Session()...); err != nil {
		return nil, nil, interpretError(ctx, err)
	}
	sqls, err := textsOf(ctx, tx, sts)
	if err != nil {
		return nil, nil, err
	}
	out := make([][]Candidate, len(sts))
	for i := range sts {
		var rows pgx.Rows
		if sqls[i] == sts[i].SQL {
			rows, err = queryPrepared(ctx, tx, sqls[i], args[i])
		} else {
			// A routed or shard text names its scope set: pgx's statement cache (bounded)
			// keeps it, not a prepared statement of the connection's for every set it serves.
			rows, err = tx.Query(ctx, sqls[i], args[i])
		}
		if err != nil {
			return nil, nil, interpretError(ctx, err)
		}
		if out[i], err = pgx.CollectRows(rows, scan); err != nil {
			return nil, nil, interpretError(ctx, err)
		}
		out[i] = attachContext(out[i])
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, nil, interpretError(ctx, err)
	}
	return out, sqls, nil
}

// ErrManySets is returned on a Citus cluster by RunText for a recall by a caller who sees more
// than one scope set (the routed statement is of one), and so by RunDirect when it has no
// workers' pools; with them it reads any number on their workers (RunOnShards, RunSpread).
// Reads whose rows each belong to one set are read set by set instead (RouteReadSets).
var ErrManySets = errors.New("statement: on a Citus cluster a routed recall is of one scope set; the caller sees several")

// routeOnCitus returns the text each statement runs as: on one server (and on a Citus
// coordinator whose tables are not distributed) its own; on a distributed schema its routed
// form (Statement.Routed) for the one scope set the caller sees (OneSet).
func routeOnCitus(ctx context.Context, tx pgx.Tx, sts []*Statement) ([]string, error) {
	sqls := make([]string, len(sts))
	if !scope.Distributed(tx) {
		for i, st := range sts {
			sqls[i] = st.SQL
		}
		return sqls, nil
	}
	set, err := OneSet(ctx, tx)
	if err != nil {
		return nil, err
	}
	for i, st := range sts {
		if sqls[i], err = st.Routed(set); err != nil {
			return nil, err
		}
	}
	return sqls, nil
}

// OneSet returns the one scope set the caller of tx (set up by scope.Apply) sees, found
// under row security from the per-set statistics (sql/read/visible_sets.sql): empty when
// it sees none, ErrManySets when more than one.
func OneSet(ctx context.Context, tx pgx.Tx) ([]string, error) {
	sets, err := visibleSets(ctx, tx, sqltext.VisibleSets)
	if err != nil {
		return nil, err
	}
	switch len(sets) {
	case 0:
		return []string{}, nil
	case 1:
		return sets[0], nil
	}
	return nil, ErrManySets
}

// visibleSets returns the scope sets the caller of tx sees, as read lists them
// (sqltext.VisibleSets, at most two; sqltext.VisibleSetsAll, all).
func visibleSets(ctx context.Context, tx pgx.Tx, read string) ([][]string, error) {
	rows, err := tx.Query(ctx, read)
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	sets, err := pgx.CollectRows(rows, pgx.RowTo[[]string])
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	return sets, nil
}

// RouteReadSets returns sqls, reads of recall's tables as the caller of tx written with the
// read markers of the statement's fragments (sql/lanes/reads.sql), as they must run to read
// every scope set the caller sees: on one server, once, in one server's form (one group); on a
// distributed schema once per set the caller sees, in the order of the sets' scopes (a caller
// of no set: no group), each group bound to its set the way the statement's routed form is
// (every distributed table read through a subquery of that set, recall.visible_corpus() by
// the set's row), so Citus sends it whole to the set's shard. A read whose rows each belong
// to one set is then the groups' rows together: Engine.Browse and Engine.Memory merge them
// as one server orders them. The work grows with the sets the caller sees, never with the
// others'.
func RouteReadSets(ctx context.Context, tx pgx.Tx, sqls ...string) ([][]string, error) {
	if !scope.Distributed(tx) {
		single := make([]string, len(sqls))
		for i, sql := range sqls {
			var err error
			if single[i], err = formReads.get(sql, readsSingle); err != nil {
				return nil, err
			}
		}
		return [][]string{single}, nil
	}
	sets, err := visibleSets(ctx, tx, sqltext.VisibleSetsAll)
	if err != nil {
		return nil, err
	}
	routed := make([]string, len(sqls))
	for i, sql := range sqls {
		if routed[i], err = formReads.get(sql, readsRouted); err != nil {
			return nil, err
		}
	}
	out := make([][]string, len(sets))
	for s, set := range sets {
		out[s] = make([]string, len(routed))
		for i, r := range routed {
			out[s][i] = bindRoute(r, set)
		}
	}
	return out, nil
}

// formReads keeps RouteReadSets' texts by form and text: the reads are the package sql's
// constants, so it holds a few.
var formReads = readCache{m: map[readKey]string{}}

type readKey struct {
	form *template.Template
	sql  string
}

type readCache struct {
	mu sync.Mutex
	m  map[readKey]string
}

// get is sql written in form.
func (c *readCache) get(sql string, form *template.Template) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := readKey{form, sql}
	if r, ok := c.m[k]; ok {
		return r, nil
	}
	rd, err := parseReads(sql, form, 0)
	if err != nil {
		return "", err
	}
	c.m[k] = rd.fill(byForm(form))
	return c.m[k], nil
}

// queryPrepared runs sql as a prepared statement of the connection's own, prepared at its
// first use there (Prepare is idempotent: later calls cost no round trip). pgx's automatic
// statement cache deallocates a statement whenever a query on it fails, a cancelled one
// included, so the next recall on that connection would prepare and plan the statement
// again (about 25 ms); a statement prepared by name is kept.
func queryPrepared(ctx context.Context, tx pgx.Tx, sql string, args pgx.NamedArgs) (pgx.Rows, error) {
	rsql, binds, err := prepare(ctx, tx.Conn(), sql, args)
	if err != nil {
		return nil, err
	}
	return tx.Query(ctx, rsql, binds...)
}

// interpretError is the one place driver errors become the package's errors (dberr).
func interpretError(ctx context.Context, err error) error {
	return dberr.Interpret(ctx, "recall statement", err)
}

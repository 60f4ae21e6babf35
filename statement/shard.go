package statement

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	sqltext "github.com/recall-engine/recall/sql"
)

// A read on a scope set's shards (docs/SCALING.md, "What is left"): Citus plans a routed
// statement anew at every call, on the coordinator and on the worker, while one server keeps
// its plan. The shard form (sql/citus/shard.sql) is the routed form (routed.go) with every
// distributed table read from the set's shard and the probes' shard forms
// (recall.probe_titles_shard and probe_entities_shard), prepared on the worker that holds the
// shards as the caller, under the same scopes and settings: the shards carry their tables'
// policies. RunOnShard runs it.

// ErrShardMoved is returned by RunOnShard when the worker it reads on no longer holds the
// scope set's shards (an operator moved them): read the placement again.
var ErrShardMoved = errors.New("statement: the scope set's shards are not on this worker")

// Placement is where a scope set's shards are: the worker's address and, for every table
// distributed by scope set, the name of the set's shard ("recall.memories_102061").
type Placement struct {
	Host   string
	Port   int
	Shards map[string]string
}

// PlacementOf reads where set's shards are from the coordinator's metadata (tx: a
// transaction on the coordinator). It fails when the set's shards are not all on one worker.
func PlacementOf(ctx context.Context, tx pgx.Tx, set []string) (Placement, error) {
	rows, err := tx.Query(ctx, sqltext.ShardPlacement, set)
	if err != nil {
		return Placement{}, interpretError(ctx, err)
	}
	p := Placement{Shards: map[string]string{}}
	var table, shard, host string
	var port int
	_, err = pgx.ForEachRow(rows, []any{&table, &shard, &host, &port}, func() error {
		if p.Host != "" && (host != p.Host || port != p.Port) {
			return fmt.Errorf("statement: scope set %v is on %s:%d and %s:%d", set, p.Host, p.Port, host, port)
		}
		p.Host, p.Port, p.Shards[table] = host, port, shard
		return nil
	})
	if err != nil {
		return Placement{}, interpretError(ctx, err)
	}
	if p.Host == "" {
		return Placement{}, fmt.Errorf("statement: no shard placement for scope set %v: is the schema distributed?", set)
	}
	return p, nil
}

// shardCut is a shape's shard form cut at its shard tables' names, so that a placement's are
// written in by concatenation: text[i] comes before the shard of tables[i].
type shardCut struct {
	text   []string
	tables []string
}

// shardCuts holds each shape's shardCut, cut once.
var shardCuts sync.Map // Shape -> *shardCut

// cutShard writes the routed text r in the shard form (sql/citus/shard.sql), each table's
// shard named by a NUL-delimited mark, and cuts it at the marks.
func cutShard(r *reads) *shardCut {
	text := r.fill(func(h hole) string {
		if h.table != "" {
			return exec(readsShard, "table", struct{ Shard string }{"\x00" + h.table + "\x00"})
		}
		return exec(readsShard, "probe", struct{ Kind, Args string }{h.probe, h.args})
	})
	parts := strings.Split(text, "\x00")
	f := &shardCut{}
	for i, p := range parts {
		if i%2 == 0 {
			f.text = append(f.text, p)
		} else {
			f.tables = append(f.tables, p)
		}
	}
	return f
}

// ShardSQL returns the text of st's shard form for scope set set placed at p.
func (st *Statement) ShardSQL(set []string, p Placement) (string, error) {
	shape := st.Shape
	shape.Routed = true
	rst, err := routed.Get(shape)
	if err != nil {
		return "", err
	}
	v, ok := shardCuts.Load(shape)
	if !ok {
		v, _ = shardCuts.LoadOrStore(shape, cutShard(rst.reads))
	}
	f := v.(*shardCut)
	var b strings.Builder
	b.Grow(len(rst.SQL) + 16*len(f.tables))
	for i, table := range f.tables {
		sh, ok := p.Shards[table]
		if !ok {
			return "", fmt.Errorf("statement: the placement names no shard of recall.%s", table)
		}
		b.WriteString(f.text[i])
		b.WriteString(sh)
	}
	b.WriteString(f.text[len(f.tables)])
	return bindRoute(b.String(), set), nil
}

// RunOnShard runs st's shard form for q on pool, a pool of the runtime role on the worker of
// p, where set's shards are: one read-only transaction as the caller (scopes and settings
// with SET LOCAL), which first checks that the set's shard is still there (ErrShardMoved),
// then runs the text, which it also returns. RunOnShards does it for several sets.
func RunOnShard(ctx context.Context, pool Beginner, who Scopes, st *Statement, set []string, p Placement, q Query, s Settings) ([]Candidate, string, error) {
	return RunOnShards(ctx, pool, who, st, [][]string{set}, []Placement{p}, q, s)
}

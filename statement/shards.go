package statement

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	sqltext "github.com/recall-engine/recall/sql"
)

// With Settings.SetsPerText above one, a caller of several scope sets whose shards are all
// placed on one worker reads them there together: the statement's shard form with every distributed table read as the union of the
// sets' shards, each bound to the sets, and each probe run once per set (a probe's answer is
// its set's matches, and the sets' answers together are the caller's). The rows read are
// exactly those one server's statement reads for the caller, so its answer is one server's
// (TestCitusManySets). It is not the default: the union of shards made the text 2-5x slower
// than the rounds of one set a text (spread.go; BenchmarkCitusSets).

// MaxDirectSets is the most scope sets one shard-form text names (its text, planned at every
// call, grows with each): Settings.SetsPerText's upper bound.
const MaxDirectSets = 16

// ShardSQLSets returns the text of st's shard form for the scope sets sets, whose shards are
// placed at places (the same worker; places[i] is sets[i]'s).
func (st *Statement) ShardSQLSets(sets [][]string, places []Placement) (string, error) {
	if len(sets) == 1 {
		return st.ShardSQL(sets[0], places[0])
	}
	shape := st.Shape
	shape.Routed = true
	rst, err := routed.Get(shape)
	if err != nil {
		return "", err
	}
	return shardSets(rst.reads, sets, places)
}

// shardSets writes r, a routed text cut at its reads (forms.go), in the shard form of the
// scope sets sets placed at places (one worker): every distributed table read as the union of
// the sets' shards bound to the sets, each probe's call once per set.
func shardSets(r *reads, sets [][]string, places []Placement) (string, error) {
	// The sets' literals are written in last, in one pass, where the marks stand: a scope may
	// be named like a table's read or a probe's call, and must not be rewritten as one.
	lits := make([]string, len(sets))
	marks := make([]string, 0, 2*len(sets)+2)
	for i, set := range sets {
		lits[i] = arrayLiteral(set) + "::text[]"
		marks = append(marks, fmt.Sprintf("\x00set%d\x00", i), lits[i])
	}
	marks = append(marks, "\x00sets\x00", strings.Join(lits, ", "))
	var bad error
	text := r.fill(func(h hole) string {
		if h.table != "" {
			union, err := shardUnion(h.table, places, "\x00sets\x00")
			if err != nil {
				bad = err
			}
			return "(" + union + ")"
		}
		parts := make([]string, len(lits))
		for i := range lits {
			parts[i] = fill(shardProbe, "probe", h.probe, "set", fmt.Sprintf("\x00set%d\x00", i), "args", h.args)
		}
		return "(" + strings.Join(parts, " UNION ALL ") + ")"
	})
	if bad != nil {
		return "", bad
	}
	if strings.Contains(text, "@route") {
		return "", fmt.Errorf("statement: the shard form of %d scope sets left a read unbound to them", len(sets))
	}
	return strings.NewReplacer(marks...).Replace(text), nil
}

// titleKnownSQL sets recall.title_known, for the title probes of several sets
// (sql/lanes/title_probe.sql), to the keys of the titles the query names exactly in any of
// them: each set's exact branch alone (no fuzzy words), over the sets' sources shards.
func titleKnownSQL(sets [][]string, places []Placement) (string, error) {
	lits := make([]string, len(sets))
	probes := make([]string, len(sets))
	for i, set := range sets {
		lits[i] = arrayLiteral(set) + "::text[]"
		probes[i] = fill(shardProbe, "probe", "titles", "set", lits[i], "args", "@qlower::text, @title_exact_words::int, 0, @title_floor::float8")
	}
	sources, err := shardUnion("sources", places, strings.Join(lits, ", "))
	if err != nil {
		return "", err
	}
	return fill(titleKnown, "probes", strings.Join(probes, " UNION ALL "), "sources", sources), nil
}

// shardUnion is the read of table in the shard form of several sets: each distinct shard of
// it that places name, bound to sets (their literals, comma-separated), joined by UNION ALL.
func shardUnion(table string, places []Placement, sets string) (string, error) {
	var shards []string
	for _, p := range places {
		sh, ok := p.Shards[table]
		if !ok {
			return "", fmt.Errorf("statement: the placement names no shard of recall.%s", table)
		}
		if !slices.Contains(shards, sh) {
			shards = append(shards, sh)
		}
	}
	parts := make([]string, len(shards))
	for i, sh := range shards {
		parts[i] = fill(shardRead, "shard", sh, "sets", sets)
	}
	return strings.Join(parts, " UNION ALL "), nil
}

// The pieces of sql/citus/ the shard form of several sets is written from, each on one line
// without its comments.
var shardRead, shardProbe, titleKnown = oneLine(sqltext.ShardRead), oneLine(sqltext.ShardProbe), oneLine(sqltext.TitleKnown)

func oneLine(piece string) string {
	var lines []string
	for _, l := range strings.Split(piece, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "--") {
			lines = append(lines, t)
		}
	}
	return strings.Join(lines, " ")
}

// fill is piece with each {{name}} replaced, in one pass, by the value after it (name, value,
// name, value, ...).
func fill(piece string, pairs ...string) string {
	r := make([]string, len(pairs))
	for i, v := range pairs {
		if i%2 == 0 {
			v = "{{" + v + "}}"
		}
		r[i] = v
	}
	return strings.NewReplacer(r...).Replace(piece)
}

// RunOnShards is RunOnShard for the scope sets sets placed at places, all on the worker pool
// reaches: it first checks that every set's shard is still there (ErrShardMoved), and for
// several sets sets the title keys they name (titleKnownSQL) when the plan runs the title
// lane.
func RunOnShards(ctx context.Context, pool Beginner, who Scopes, st *Statement, sets [][]string, places []Placement, q Query, s Settings) ([]Candidate, string, error) {
	text, err := st.ShardSQLSets(sets, places)
	if err != nil {
		return nil, "", err
	}
	onShard := func(ctx context.Context, tx pgx.Tx, _ []*Statement) ([]string, error) {
		if err := shardsHere(ctx, tx, sets, places); err != nil {
			return nil, err
		}
		if len(sets) > 1 && st.Shape.Plan.Has(Title) {
			if err := setTitleKnown(ctx, tx, sets, places, q, s); err != nil {
				return nil, err
			}
		}
		return []string{text}, nil
	}
	out, _, err := runEach(ctx, pool, who, []*Statement{st}, q, s, onShard)
	if err != nil {
		return nil, "", err
	}
	return out[0], text, nil
}

// shardsHere checks, in tx on a worker, that every set's shards are still placed there
// (ErrShardMoved when one is not).
func shardsHere(ctx context.Context, tx pgx.Tx, sets [][]string, places []Placement) error {
	for i, set := range sets {
		var here bool
		if err := tx.QueryRow(ctx, sqltext.ShardHere, set, places[i].Shards["memories"]).Scan(&here); err != nil {
			return interpretError(ctx, err)
		}
		if !here {
			return fmt.Errorf("%w: scope set %v, %s", ErrShardMoved, set, places[i].Shards["memories"])
		}
	}
	return nil
}

// setTitleKnown sets recall.title_known in tx to the title keys q names exactly in sets
// (titleKnownSQL).
func setTitleKnown(ctx context.Context, tx pgx.Tx, sets [][]string, places []Placement, q Query, s Settings) error {
	known, err := titleKnownSQL(sets, places)
	if err != nil {
		return err
	}
	args := pgx.NamedArgs{"qlower": strings.ToLower(q.Raw), "title_exact_words": s.TitleExactWords, "title_floor": s.TitleFloor}
	if _, err := tx.Exec(ctx, known, args); err != nil {
		return interpretError(ctx, err)
	}
	return nil
}

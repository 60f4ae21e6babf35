package statement_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

type memAttrs struct {
	kind     string
	tags     []string
	team     string
	occurred time.Time
}

// passes is the filter rule computed in Go.
func passes(m memAttrs, f statement.Filters) bool {
	if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, m.kind) {
		return false
	}
	if team, ok := f.Metadata["team"]; ok && team != m.team {
		return false
	}
	if !f.From.IsZero() && m.occurred.Before(f.From) {
		return false
	}
	if !f.To.IsZero() && !m.occurred.Before(f.To) {
		return false
	}
	if len(f.Tags) == 0 {
		return true
	}
	anyOf, allOf := false, true
	for _, t := range f.Tags {
		if slices.Contains(m.tags, t) {
			anyOf = true
		} else {
			allOf = false
		}
	}
	untagged := len(m.tags) == 0
	switch f.TagsMode {
	case statement.TagsAny, "":
		return untagged || anyOf
	case statement.TagsAnyStrict:
		return anyOf
	case statement.TagsAll:
		return untagged || allOf
	case statement.TagsAllStrict:
		return !untagged && allOf
	}
	panic("unknown tags mode")
}

// TestFiltersMatchRule: each filter mode, applied inside the lanes, returns exactly the
// memories the rule computed in Go allows, in full (not cut by the lane's LIMIT first).
func TestFiltersMatchRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	fixture{scopes: []string{"acme"}, n: 200, seed: 11, dim: dim, base: base}.load(t, db.Runtime)

	attrs := map[int64]memAttrs{}
	rows, err := db.Owner.Query(ctx, `SELECT id, kind, tags, metadata->>'team', occurred_start FROM recall.memories`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var m memAttrs
		if err := rows.Scan(&id, &m.kind, &m.tags, &m.team, &m.occurred); err != nil {
			t.Fatal(err)
		}
		attrs[id] = m
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}

	// Every fixture text ends with "<person> was there", so a query naming all people
	// matches every memory in BM25; the vector lane sees every memory too.
	q := statement.Query{Text: strings.Join(people, " "), Raw: "x", Vector: unitVector(3, dim)}
	mid := base.Add(180 * 24 * time.Hour)
	cases := []statement.Filters{
		{Kinds: []string{"experience"}},
		{Kinds: []string{"world", "observation"}},
		{Tags: []string{"red"}, TagsMode: statement.TagsAny},
		{Tags: []string{"red", "urgent"}, TagsMode: statement.TagsAnyStrict},
		{Tags: []string{"blue", "urgent"}, TagsMode: statement.TagsAll},
		{Tags: []string{"blue", "urgent"}, TagsMode: statement.TagsAllStrict},
		{Metadata: map[string]any{"team": "x"}},
		{From: mid},
		{To: mid},
		{From: base.Add(90 * 24 * time.Hour), To: mid, Kinds: []string{"world"}, Tags: []string{"green"}, TagsMode: statement.TagsAnyStrict},
	}
	// The vector lane twice: through HNSW (exact scale 0) and through exact search.
	for _, arm := range []struct {
		lane       statement.Lane
		exactScale float64
	}{{statement.BM25, 0}, {statement.Vector, 0}, {statement.Vector, 1e9}} {
		lane := arm.lane
		for i, f := range cases {
			s := statement.DefaultSettings()
			// Lane depth below the corpus size: the filter must act before the LIMIT.
			s.K, s.BM25K, s.VectorK, s.EfSearch = 1000, 60, 60, 400
			s.VectorExactScale = arm.exactScale
			s.VectorMaxDistance = 2 // random vectors: keep every hit
			q.Filters = f
			got := run(t, db, []string{"acme"}, statement.Only(lane), q, s)
			var want []int64
			for id, m := range attrs {
				if passes(m, f) {
					want = append(want, id)
				}
			}
			slices.Sort(want)
			if len(want) == 0 {
				t.Fatalf("case %d allows nothing; the fixture does not exercise it", i)
			}
			ids := sortedIDs(got)
			if len(want) > 60 {
				// The lane is full and every row passes.
				if len(ids) != 60 {
					t.Fatalf("%s case %d %+v: %d rows, want a full lane of 60", lane, i, f, len(ids))
				}
				for _, id := range ids {
					if !passes(attrs[id], f) {
						t.Fatalf("%s case %d: memory %d does not pass the filter", lane, i, id)
					}
				}
				continue
			}
			if !slices.Equal(ids, want) {
				t.Fatalf("%s case %d %+v: returned %d memories, the rule allows %d", lane, i, f, len(ids), len(want))
			}
		}
	}
}

// TestSmallScopeGetsFullLanes: a scope holding 1% of the rows still gets k results from the
// vector and BM25 lanes.
func TestSmallScopeGetsFullLanes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	tx := testdb.BeginAs(t, db.Runtime, []string{"big", "small"}, []string{"big", "small"})
	if _, err := tx.Exec(ctx, `SELECT recall.ensure_vector_index(8)`); err != nil {
		t.Fatal(err)
	}
	for _, part := range []struct {
		scope string
		n     int
	}{{"{big}", 4950}, {"{small}", 50}} {
		if _, err := tx.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, text, embedding)
			SELECT $1 || g, $1::text[], 'apple river harbor report number ' || g,
			       ARRAY(SELECT random() - 0.5 + g * 0 FROM generate_series(1, 8))::vector
			FROM generate_series(1, $2::int) g`, part.scope, part.n); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Owner.Exec(ctx, `ANALYZE recall.memories`); err != nil {
		t.Fatal(err)
	}
	s := statement.DefaultSettings()
	s.VectorK, s.BM25K, s.K, s.VectorMaxDistance = 20, 20, 100, 2
	q := statement.Query{Text: "apple river", Raw: "apple river", Vector: unitVector(4, 8)}
	for _, lane := range []statement.Lane{statement.Vector, statement.BM25} {
		got := run(t, db, []string{"small"}, statement.Only(lane), q, s)
		if len(got) != 20 {
			t.Fatalf("%s lane gave the 1%% scope %d rows, want 20", lane, len(got))
		}
		for _, c := range got {
			if !strings.HasPrefix(c.ExternalID, "{small}") {
				t.Fatalf("%s lane returned %s to the small scope", lane, c.ExternalID)
			}
		}
	}
}

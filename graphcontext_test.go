package recall_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recall-engine/recall"
)

// TestGraphContext: the pack's graph context is exactly the relations a walk here over the
// visible graph finds (row security's rule applied in Go to everything the owner reads): one
// end among the entities the query names, the other among those the packed memories
// mention, both ends visible, the evidence memory's id only when the caller sees it. None
// involves a row of a scope the caller cannot read; each relation once, most mass first;
// their tokens count in the budget.
func TestGraphContext(t *testing.T) {
	db, e := conversationEngine(t)
	ctx := context.Background()
	writer := recall.User{ID: "w", Read: []string{"secret", "team"}, Write: []string{"secret", "team"}}
	secret := recall.Batch{Scopes: []string{"secret"}, NoExtract: true,
		Entities: []recall.Entity{{ID: "zed", Name: "Zed"}, {ID: "oslo", Name: "Oslo"}},
		Memories: []recall.Memory{{ID: "s1", Text: "Zed met Ana in Oslo.", Entities: []string{"zed", "oslo"}}},
	}
	if _, err := e.Write(ctx, writer, secret); err != nil {
		t.Fatal(err)
	}
	team := recall.Batch{Scopes: []string{"team"}, NoExtract: true,
		Entities: []recall.Entity{{ID: "ana", Name: "Ana"}, {ID: "bo", Name: "Bo"}, {ID: "lisbon", Name: "Lisbon"}, {ID: "paris", Name: "Paris"}, {ID: "rome", Name: "Rome"}},
		Memories: []recall.Memory{
			{ID: "m1", Text: "Ana and Bo cooked dinner together.", Entities: []string{"ana", "bo"}},
			{ID: "m2", Text: "Ana moved to Lisbon in spring.", Entities: []string{"ana", "lisbon"}},
			{ID: "m3", Text: "Bo flew to Paris for work.", Entities: []string{"bo", "paris"}},
			{ID: "m4", Text: "Rome is warm in summer.", Entities: []string{"rome"}},
		},
		Relations: []recall.Relation{
			{From: "ana", To: "paris", Predicate: "visited", Memory: "m3"},
			{From: "bo", To: "ana", Predicate: "cooks_with", Weight: 2},
			{From: "rome", To: "ana", Predicate: "far_from"},
		},
	}
	if _, err := e.Write(ctx, writer, team); err != nil {
		t.Fatal(err)
	}
	// Relations in the team's scope set with a secret end or secret evidence (the writer
	// sees both scopes, the reader only the team's) cannot exist.
	var zed, ana, lisbon, s1 int64
	for _, x := range []struct {
		id  *int64
		sql string
	}{
		{&zed, `SELECT id FROM recall.entities WHERE external_id = 'zed'`},
		{&ana, `SELECT id FROM recall.entities WHERE external_id = 'ana'`},
		{&lisbon, `SELECT id FROM recall.entities WHERE external_id = 'lisbon'`},
		{&s1, `SELECT id FROM recall.memories WHERE external_id = 's1'`},
	} {
		if err := db.Owner.QueryRow(ctx, x.sql).Scan(x.id); err != nil {
			t.Fatal(err)
		}
	}
	// Even the owner cannot store them: a relation's ends and evidence are keys on (id,
	// scopes) in the relation's own scope set (migration 00006).
	for _, x := range []struct {
		what string
		args []any
	}{{"a secret end", []any{zed, ana, nil}}, {"secret evidence", []any{ana, lisbon, s1}}} {
		_, err := db.Owner.Exec(ctx, `INSERT INTO recall.relations (scopes, src_id, dst_id, predicate, memory_id) VALUES ('{team}', $1, $2, 'knows', $3)`, x.args...)
		if pe := (*pgconn.PgError)(nil); !errors.As(err, &pe) || pe.Code != "23503" {
			t.Fatalf("a team relation with %s: %v, want a foreign key violation", x.what, err)
		}
	}

	type rel struct {
		id                 int64
		src, dst           int64
		predicate          string
		scopes             []string
		evidence           *int64
		srcName, dstName   string
		srcScope, dstScope []string
	}
	rows, err := db.Owner.Query(ctx, `SELECT r.id, r.src_id, r.dst_id, r.predicate, r.scopes, r.memory_id, s.name, d.name, s.scopes, d.scopes
		FROM recall.relations r JOIN recall.entities s ON s.id = r.src_id JOIN recall.entities d ON d.id = r.dst_id`)
	if err != nil {
		t.Fatal(err)
	}
	rels, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (rel, error) {
		var x rel
		err := r.Scan(&x.id, &x.src, &x.dst, &x.predicate, &x.scopes, &x.evidence, &x.srcName, &x.dstName, &x.srcScope, &x.dstScope)
		return x, err
	})
	if err != nil {
		t.Fatal(err)
	}
	memScopes, memExt := map[int64][]string{}, map[int64]string{}
	rows, err = db.Owner.Query(ctx, `SELECT id, external_id, scopes FROM recall.memories`)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	var ext string
	var sc []string
	if _, err := pgx.ForEachRow(rows, []any{&id, &ext, &sc}, func() error { memScopes[id], memExt[id] = sc, ext; return nil }); err != nil {
		t.Fatal(err)
	}
	visible := func(scopes []string) bool { // the read policy: scopes && read scopes
		return slices.ContainsFunc(scopes, func(s string) bool { return slices.Contains(member.Read, s) })
	}
	entityID := map[string]int64{}
	rows, err = db.Owner.Query(ctx, `SELECT id, name FROM recall.entities WHERE scopes && $1`, member.Read)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pgx.ForEachRow(rows, []any{&id, &ext}, func() error { entityID[ext] = id; return nil }); err != nil {
		t.Fatal(err)
	}

	checked := 0
	for _, q := range []string{"What did Ana do?", "Where is Bo?", "Ana and Bo", "Tell me about Rome and Ana"} {
		p, err := e.Recall(ctx, member, q, 2000, &recall.Options{GraphContext: true})
		if err != nil {
			t.Fatal(err)
		}
		// The query's entities: the visible ones it names, word for word.
		named := map[int64]bool{}
		for name, id := range entityID {
			if slices.Contains(strings.FieldsFunc(q, func(r rune) bool { return r == ' ' || r == '?' }), name) {
				named[id] = true
			}
		}
		packedEntities := map[int64]bool{}
		for _, it := range p.Items {
			for _, n := range it.Entities {
				packedEntities[entityID[n]] = true
			}
		}
		var want []string
		for _, r := range rels {
			if !visible(r.scopes) || !visible(r.srcScope) || !visible(r.dstScope) {
				continue
			}
			if connects := named[r.src] && packedEntities[r.dst] || named[r.dst] && packedEntities[r.src]; !connects {
				continue
			}
			ev := ""
			if r.evidence != nil && visible(memScopes[*r.evidence]) {
				ev = memExt[*r.evidence]
			}
			want = append(want, fmt.Sprintf("%d %s %s %s %s", r.id, r.srcName, r.predicate, r.dstName, ev))
		}
		var got []string
		tokens := 0
		for i, tr := range p.GraphContext {
			got = append(got, fmt.Sprintf("%d %s %s %s %s", tr.Relation, tr.Subject, tr.Predicate, tr.Object, tr.Evidence))
			tokens += (len(tr.Subject+" "+tr.Predicate+" "+tr.Object) + 3) / 4
			if i > 0 && tr.Mass > p.GraphContext[i-1].Mass {
				t.Errorf("%q: graph context not in mass order: %+v", q, p.GraphContext)
			}
			if strings.Contains(got[i], "Zed") || tr.Evidence == "s1" {
				t.Fatalf("%q: the graph context shows a secret row: %s", q, got[i])
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: graph context\n got  %v\n want %v", q, got, want)
		}
		itemTokens := 0
		for _, it := range p.Items {
			itemTokens += it.Tokens
		}
		if p.GraphTokens != tokens || p.Used != itemTokens+tokens || p.Used > p.Budget {
			t.Errorf("%q: graph tokens %d (counted %d), used %d = items %d + graph, budget %d", q, p.GraphTokens, tokens, p.Used, itemTokens, p.Budget)
		}
		checked += len(want)
	}
	if checked < 4 {
		t.Fatalf("only %d triplets expected over the queries: the test does not reach the graph", checked)
	}
	// Off by default.
	p, err := e.Recall(ctx, member, "What did Ana do?", 2000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.GraphContext) != 0 {
		t.Errorf("graph context without the option: %v", p.GraphContext)
	}
}

// TestGraphContextBudget: at a budget the items fill, the graph context takes at most a
// fifth of it from them, and the pack stays within the budget.
func TestGraphContextBudget(t *testing.T) {
	_, e := conversationEngine(t)
	ctx := context.Background()
	b := recall.Batch{NoExtract: true, Entities: []recall.Entity{{ID: "ana", Name: "Ana"}}}
	for i := range 12 {
		id := fmt.Sprintf("place%d", i)
		b.Entities = append(b.Entities, recall.Entity{ID: id, Name: fmt.Sprintf("Place%d", i)})
		b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("m%d", i), Text: fmt.Sprintf("Ana went to Place%d with friends and stayed a while.", i), Entities: []string{"ana", id}})
		b.Relations = append(b.Relations, recall.Relation{From: "ana", To: id, Predicate: "visited"})
	}
	if _, err := e.Write(ctx, member, b); err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{5, 40, 100, 150} {
		p, err := e.Recall(ctx, member, "Where did Ana go?", budget, &recall.Options{GraphContext: true})
		if err != nil {
			t.Fatal(err)
		}
		items := 0
		for _, it := range p.Items {
			items += it.Tokens
		}
		if p.Used > budget || p.Used != items+p.GraphTokens {
			t.Errorf("budget %d: used %d, items %d, graph %d", budget, p.Used, items, p.GraphTokens)
		}
		if budget >= 40 && (len(p.GraphContext) == 0 || p.GraphTokens > budget-items) {
			t.Errorf("budget %d: %d triplets (%d tokens) beside %d tokens of items", budget, len(p.GraphContext), p.GraphTokens, items)
		}
		// The items keep at least what a walk in four fifths of the budget packs.
		alone, err := e.Recall(ctx, member, "Where did Ana go?", budget-budget/recall.GraphContextShare, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) < len(alone.Items) {
			t.Errorf("budget %d: %d items with the graph context, %d in four fifths of the budget without", budget, len(p.Items), len(alone.Items))
		}
	}
}

package statement

import (
	"fmt"
	"strings"
	"testing"
)

// TestEveryFormRunsEveryLane: without a database, for every plan of the study (maximal, each
// lane alone, maximal less each lane), with and without a vector, exact and fuzzy entities,
// every read form builds (the single server's text, the routed one, one set's shard form,
// two sets' shard form, the spread rounds across workers), and each holds every lane of the
// plan and no lane outside it: the lane's own WITH query (<lane>_lane) in the texts that run
// the whole statement; in the spread rounds, the lanes round's rows of the lane's kind (what
// the merge in Go reads) for each lane but graph, whose walk and rank rounds are there only
// when the plan has it.
func TestEveryFormRunsEveryLane(t *testing.T) {
	places := make([]Placement, 2)
	for i := range places {
		places[i] = Placement{Host: "w", Port: 1, Shards: map[string]string{}}
		for _, table := range strings.Split(distributed, "|") {
			places[i].Shards[table] = fmt.Sprintf("recall.%s_%d", table, 10+i)
		}
	}
	forms := 0
	for _, plan := range StudyPlans() {
		for _, dim := range []int{0, 1024} {
			for _, fuzzy := range []bool{false, true} {
				shape := Shape{Dim: dim, Fuzzy: fuzzy, Plan: plan}
				st, err := Build(shape)
				if err == ErrEmptyPlan {
					continue
				}
				if err != nil {
					t.Fatalf("%+v: %v", shape, err)
				}
				texts := map[string]string{"single": st.SQL}
				if texts["routed"], err = st.Routed([]string{"team"}); err != nil {
					t.Fatalf("%+v routed: %v", shape, err)
				}
				if texts["shard"], err = st.ShardSQL([]string{"team"}, places[0]); err != nil {
					t.Fatalf("%+v shard: %v", shape, err)
				}
				if texts["shards"], err = st.ShardSQLSets([][]string{{"team"}, {"ops"}}, places); err != nil {
					t.Fatalf("%+v shards: %v", shape, err)
				}
				for form, text := range texts {
					forms++
					for _, l := range Lanes() {
						if has := strings.Contains(text, l.String()+"_lane AS"); has != st.Shape.Plan.Has(l) {
							t.Errorf("%+v, form %s: lane %s present %v, the plan runs it %v", shape, form, l, has, st.Shape.Plan.Has(l))
						}
					}
				}
				f, err := buildSpread(st.Shape)
				if err != nil {
					t.Fatalf("%+v spread: %v", shape, err)
				}
				forms++
				for _, l := range Lanes() {
					in := st.Shape.Plan.Has(l)
					var has bool
					if l == Graph {
						has = f.walk != nil && f.rank != ""
					} else {
						// The row of the lane's kind in spread_rows, what the merge reads.
						has = strings.Contains(f.lanes.fill(byForm(readsRouted)), "SELECT '"+l.String()+"', ")
					}
					// The graph lane's seeds and pool are the bm25 and vector hits: a plan with
					// it carries their rows whether it ranks by them or not.
					if has != in && (in || !st.Shape.Plan.Has(Graph)) {
						t.Errorf("%+v, spread: lane %s present %v, the plan runs it %v", shape, l, has, in)
					}
				}
			}
		}
	}
	if forms < 100 {
		t.Fatalf("only %d forms built", forms)
	}
}

// TestParseReads: the marker parser cuts a text at its table reads and probe calls, writes
// the whole markers out by the form (what they write is read in the same form), and refuses
// a marker it does not know, a table not distributed by scope set, and a marker that does not
// close; each form writes the same cut text as its file says.
func TestParseReads(t *testing.T) {
	text := "SELECT 1 FROM {{recall.memories}} m JOIN {{probe_entities @q::text[], true, 0.5}} p ON p.id = m.id CROSS JOIN {{visible_corpus}} c"
	r, err := parseReads(text, readsRouted, 8)
	if err != nil {
		t.Fatal(err)
	}
	want := []hole{{table: "memories"}, {probe: "entities", args: "@q::text[], true, 0.5"}, {table: "bm25_corpus"}}
	if len(r.holes) != len(want) || len(r.text) != len(want)+1 {
		t.Fatalf("holes %+v, %d texts", r.holes, len(r.text))
	}
	for i, h := range want {
		if r.holes[i] != h {
			t.Fatalf("hole %d: %+v, want %+v", i, r.holes[i], h)
		}
	}
	single, err := parseReads(text, readsSingle, 8)
	if err != nil {
		t.Fatal(err)
	}
	for form, c := range map[string]struct {
		r    *reads
		fill func(hole) string
		want string
	}{
		"single": {single, byForm(readsSingle), "SELECT 1 FROM recall.memories m JOIN recall.probe_entities(@q::text[], true, 0.5) p ON p.id = m.id CROSS JOIN recall.visible_corpus() c"},
		"routed": {r, byForm(readsRouted), "SELECT 1 FROM (SELECT * FROM recall.memories WHERE scopes = @route::text[]) m JOIN recall.probe_entities_routed(@route::text[], @q::text[], true, 0.5) p ON p.id = m.id CROSS JOIN (SELECT * FROM recall.bm25_corpus WHERE scopes = @route::text[]) c"},
	} {
		if got := c.r.fill(c.fill); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", form, got, c.want)
		}
	}
	for _, bad := range []string{"FROM {{recall.keys}} k", "FROM {{nearest}} n", "FROM {{recall.memories m", "{{visible_corpus x}} c"} {
		if _, err := parseReads(bad, readsSingle, 8); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

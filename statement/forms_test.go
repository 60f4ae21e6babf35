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
						has = f.walk != "" && f.rank != ""
					} else {
						// The row of the lane's kind in spread_rows, what the merge reads.
						has = strings.Contains(f.lanes, "SELECT '"+l.String()+"', ")
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

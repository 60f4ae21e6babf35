package statement

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	// boundRead is a table read routed to the set (sql/citus/routed.sql's table block).
	boundRead = regexp.MustCompile(`\(SELECT \* FROM recall\.(` + distributed + `) WHERE scopes = @route::text\[\]\)`)
	// unrouted is what no routed statement may hold outside its bound reads: a function
	// reading distributed tables, a catalog table, or a table read without its scope set.
	unrouted = regexp.MustCompile(`recall\.(probe_entities|probe_titles|vector_nearest|visible_corpus)\(|pg_class|\brecall\.(` + distributed + `)\b`)
)

// TestRoutedForms: every plan's statement, of every shape, has a routed form in which every
// distributed table is read bound to the scope set and no function reads a distributed
// table; the form takes the statement's binds and no other, and one server's text holds no
// bound read.
func TestRoutedForms(t *testing.T) {
	plans := []Plan{Maximal}
	for _, l := range Lanes() {
		plans = append(plans, Only(l))
	}
	for _, plan := range plans {
		for _, dim := range []int{0, 64, 1024} {
			for _, fuzzy := range []bool{false, true} {
				shape := Shape{Dim: dim, Fuzzy: fuzzy, Plan: plan}
				st, err := Build(shape)
				if err == ErrEmptyPlan {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				text, err := st.Routed([]string{"team", "o'brien"})
				if err != nil {
					t.Fatalf("%+v: %v", shape, err)
				}
				if strings.Contains(st.SQL, "@route") || !strings.Contains(text, `'{"o''brien","team"}'::text[]`) && !strings.Contains(text, `'{"team","o''brien"}'::text[]`) {
					t.Fatalf("%+v: the set is not in the routed text", shape)
				}
				shape.Routed = true
				rst, err := Build(shape)
				if err != nil {
					t.Fatal(err)
				}
				want := slices.Sorted(slices.Values(append([]string{"route"}, st.Binds...)))
				if !slices.Equal(want, rst.Binds) {
					t.Fatalf("%+v: routed binds %v, the statement's %v", shape, rst.Binds, st.Binds)
				}
				if n := strings.Count(rst.SQL, "WHERE scopes = @route::text[]"); n < 3 {
					t.Fatalf("%+v: %d tables bound to the set", shape, n)
				}
				if m := unrouted.FindString(boundRead.ReplaceAllString(rst.SQL, "")); m != "" {
					t.Fatalf("%+v: %q is left unbound to the scope set", shape, m)
				}
				if boundRead.MatchString(st.SQL) {
					t.Fatalf("%+v: one server's text reads a table bound to a set", shape)
				}
			}
		}
	}
	if got := arrayLiteral([]string{`a"b`, `c\d`, "e'f"}); got != `'{"a\"b","c\\d","e''f"}'` {
		t.Fatalf("arrayLiteral: %s", got)
	}
}

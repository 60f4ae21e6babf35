package statement

import (
	"slices"
	"strings"
	"testing"
)

// TestRoutedForms: every plan's statement, of every shape, has a routed form in which every
// distributed table is read bound to the scope set and no function reads a distributed
// table (routeSQL refuses otherwise); the form takes the statement's binds and no other, and
// one server's text is left as it was.
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
			}
		}
	}
	if got := arrayLiteral([]string{`a"b`, `c\d`, "e'f"}); got != `'{"a\"b","c\\d","e''f"}'` {
		t.Fatalf("arrayLiteral: %s", got)
	}
}

package statement

import (
	"strings"
)

// The routed form of a statement, for a Citus cluster whose tables are distributed by their
// scope set (migrations.Distribute). Citus sends a query to one shard only when every
// distributed table it reads is bound to one value of the distribution column, and a
// function that reads a distributed table cannot run inside such a query (on the shard its
// query would be a distributed query of its own). So the routed form, written by the routed
// read form (sql/citus/routed.sql; forms.go):
//
//   - reads every distributed table through a subquery bound to the caller's one scope set,
//     (SELECT * FROM recall.memories WHERE scopes = @route::text[]) m, which PostgreSQL pulls
//     up (the same plan as a condition on the table) and Citus prunes to the set's shard;
//     the read policies still apply under it;
//   - decides between the exact and the HNSW vector search by the caller's memories alone
//     (memories_reltuples);
//   - reads the scope set's statistics from recall.bm25_corpus itself, not through
//     recall.visible_corpus;
//   - finds the query's entities and titles by the probes' routed forms
//     (recall.probe_entities_routed, probe_titles_routed: sql/lanes/entity_probe.sql says
//     how they run inside the statement on the shard), bound to the same set, and does the
//     exact vector search by its query (recall.vector_nearest's) under row security.
//
// With one scope set visible, the visible rows are exactly that set's, so the routed form
// returns what the statement returns on one server (TestCitusRecall compares them), but for
// the vector lane of a caller whose choice between the exact and the HNSW search differs
// (memories_reltuples): HNSW is approximate on both.

// distributed are the tables migrations.Distribute distributes by scopes that the statement
// reads.
const distributed = `sources|memories|entities|relations|mentions|summary_coverage|memory_access|bm25_postings|bm25_docs|bm25_terms|bm25_corpus`

// routed holds the routed forms of the statements, built once per shape.
var routed Cache

// Routed returns the text of st's routed form for the scope set set: the form Citus sends
// whole to the set's shard (the comment at the top of this file), the set written into the
// text as a literal. Citus prunes a generic plan's shards only by a constant (with the set
// as a bind it failed with "could not create distributed plan"), and the engine plans
// generically. The text takes the binds st.Args gives st.
func (st *Statement) Routed(set []string) (string, error) {
	shape := st.Shape
	shape.Routed = true
	rst, err := routed.Get(shape)
	if err != nil {
		return "", err
	}
	return bindRoute(rst.SQL, set), nil
}

// bindRoute writes set into a routed text in place of its @route placeholder.
func bindRoute(routed string, set []string) string {
	return strings.ReplaceAll(routed, "@route::text[]", arrayLiteral(set)+"::text[]")
}

// arrayLiteral writes a text array as a SQL string literal: each element double-quoted with
// its backslashes and double quotes escaped (the array syntax), the whole single-quoted with
// its single quotes doubled (standard_conforming_strings, PostgreSQL's default since 9.1).
func arrayLiteral(elems []string) string {
	q := make([]string, len(elems))
	for i, e := range elems {
		q[i] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(e) + `"`
	}
	return "'" + strings.ReplaceAll("{"+strings.Join(q, ",")+"}", "'", "''") + "'"
}

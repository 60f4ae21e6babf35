package statement

import (
	"fmt"
	"regexp"
	"strings"
	"text/template"

	sqltext "github.com/recall-engine/recall/sql"
)

// The routed form of a statement, for a Citus cluster whose tables are distributed by their
// scope set (migrations.Distribute). Citus sends a query to one shard only when every
// distributed table it reads is bound to one value of the distribution column, and a
// function that reads a distributed table cannot run inside such a query (on the shard its
// query would be a distributed query of its own). So the routed form, made from the
// statement's text by routeSQL:
//
//   - reads every distributed table through a subquery bound to the caller's one scope set,
//     (SELECT * FROM recall.memories WHERE scopes = @route::text[]) m, which PostgreSQL pulls
//     up (the same plan as a condition on the table) and Citus prunes to the set's shard;
//     the read policies still apply under it;
//   - decides between the exact and the HNSW vector search by the caller's memories alone
//     (memoriesReltuples);
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
// (memoriesReltuples): HNSW is approximate on both.

// distributed are the tables migrations.Distribute distributes by scopes that the statement
// reads.
const distributed = `sources|memories|entities|relations|mentions|summary_coverage|memory_access|bm25_postings|bm25_docs|bm25_terms|bm25_corpus`

// memoriesReltuples is how sql/lanes/vector_hits.sql reads the size of the memories table;
// Citus refuses a catalog table in a distributed query ("Local tables cannot be used in
// distributed queries"), and a shard's size is not the coordinator's to read, so the routed
// form compares the caller's memories with themselves: the exact search while they are at
// most vector_exact_scale, the shard's HNSW index beyond.
var memoriesReltuples = routedPiece("memories_reltuples", nil)

// routedTmpl is sql/citus/routed.sql, parsed once.
var routedTmpl = template.Must(template.New("routed").Parse(sqltext.Routed))

// routedPiece is the block name of sql/citus/routed.sql executed with data.
func routedPiece(name string, data any) string {
	var b strings.Builder
	if err := routedTmpl.ExecuteTemplate(&b, name, data); err != nil {
		panic("statement: sql/citus/routed.sql: " + err.Error()) // the file and its data are the package's own
	}
	return b.String()
}

var (
	visibleCorpusRE = regexp.MustCompile(`recall\.visible_corpus\(\) ([a-z_][a-z0-9_]*)\b`)
	tableRefRE      = regexp.MustCompile(`\b(FROM|JOIN)\s+recall\.(` + distributed + `)\s+([a-z_][a-z0-9_]*)\b`)
	vectorNearestRE = regexp.MustCompile(`recall\.vector_nearest\(@qvec::vector\((\d+)\), (@vector_k::int)\)`)
	// boundRE matches a table read routed to the set, which unroutedRE must then not see.
	boundRE = regexp.MustCompile(`\(SELECT \* FROM recall\.(` + distributed + `) WHERE scopes = @route::text\[\]\)`)
	// What no routed statement may hold: a function reading distributed tables, or a table
	// read without its scope set.
	unroutedRE = regexp.MustCompile(`recall\.(probe_entities|probe_titles|vector_nearest|visible_corpus)\(|pg_class|\b(FROM|JOIN)\s+recall\.(` + distributed + `)\b`)
)

// sqlKeywords may follow a table name where an alias would stand; routeSQL wants an alias on
// every table it binds (each fragment gives one).
var sqlKeywords = map[string]bool{"where": true, "on": true, "join": true, "left": true, "cross": true, "order": true, "group": true, "limit": true, "using": true}

// routeSQL returns the routed form of a statement's text (the comment above says what it
// changes), or an error naming what it could not bind.
func routeSQL(sql string) (string, error) {
	sql = visibleCorpusRE.ReplaceAllString(sql, "recall.bm25_corpus $1")
	sql = strings.ReplaceAll(sql, memoriesReltuples, routedPiece("reltuples_routed", nil))
	sql = strings.ReplaceAll(sql, "recall.probe_entities(", "recall.probe_entities_routed(@route::text[], ")
	sql = strings.ReplaceAll(sql, "recall.probe_titles(", "recall.probe_titles_routed(@route::text[], ")
	sql = vectorNearestRE.ReplaceAllStringFunc(sql, func(call string) string {
		m := vectorNearestRE.FindStringSubmatch(call)
		return routedPiece("vector_nearest_routed", struct{ Dim, K string }{m[1], m[2]})
	})
	var bad string
	sql = tableRefRE.ReplaceAllStringFunc(sql, func(ref string) string {
		m := tableRefRE.FindStringSubmatch(ref)
		if sqlKeywords[strings.ToLower(m[3])] {
			bad = ref
			return ref
		}
		return m[1] + " " + routedPiece("bound_table", struct{ Table string }{m[2]}) + " " + m[3]
	})
	if bad != "" {
		return "", fmt.Errorf("statement: routing: %q reads a table without an alias", bad)
	}
	if m := unroutedRE.FindString(boundRE.ReplaceAllString(sql, "")); m != "" {
		return "", fmt.Errorf("statement: routing: %q is left unbound to the scope set", m)
	}
	return sql, nil
}

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

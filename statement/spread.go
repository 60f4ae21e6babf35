package statement

import (
	"fmt"
	"strings"
	"sync"
	"text/template"

	sqltext "github.com/recall-engine/recall/sql"
)

// A recall by a caller of several scope sets, whose shards may be on several workers. Citus
// refuses the statement across shards as one query (docs/SCALING.md), so it runs in rounds,
// each on every worker over that worker's sets (the shard form, Settings.SetsPerText sets a
// text: shards.go) inside one read-only transaction per worker, and the engine merges in Go
// what couples the sets:
//
//  1. gather: each set's BM25 statistics and its rows of the query's terms, and the entities
//     and titles the query names (the probes; the title probe after the exact title keys of
//     every worker are known). Their sums and merges are bound into the later rounds, so each
//     worker scores with the caller's statistics, not its own sets'.
//  2. lanes: every lane but graph, each lane's rows with what it takes to rank them again over
//     all the sets (a lane's top k over the union is the top k of the workers' top k).
//  3. walk: the graph walk from the merged seeds; PageRank then runs once over the merged walk
//     on the coordinator, as a query that reads no table (the statement's own arithmetic).
//  4. output: the rows of the k fused candidates and of their neighbours.
//
// spread_merge.go ranks the lanes again and fuses them as the statement does, and
// spread_run.go runs the rounds. The answer is one server's (TestCitusManySets), but that
// each worker reads its own snapshot.

// spreadForm holds a shape's texts for the rounds: routed texts cut at their reads (forms.go),
// written for a worker's sets by shardSets, but rank, which runs on the coordinator and reads
// no table.
type spreadForm struct {
	gather, lanes, walk, hits, output *reads
	rank                              string
}

// spreadData is what sql/citus/spread.sql's blocks test.
type spreadData struct {
	Lexical, Entities                             bool
	BM25, Vector, Title, Temporal, Context, Graph bool
	// Plain are the plan's lanes whose rows the lanes round returns as they are, merged by
	// score alone (mergeTop without a passage, mergeMidRanked).
	Plain []spreadLane
}

// spreadLane is a lane of spreadData.Plain: its name, whether its ties share their mid rank,
// and whether a row can be direct.
type spreadLane struct {
	Name        string
	Mid, Direct bool
}

// plainLanes are plan's lanes whose rows merge by score alone, in lane order.
func plainLanes(plan Plan) []spreadLane {
	var out []spreadLane
	for _, l := range plan.Lanes() {
		d := lanes[l]
		if d.merge == mergeMidRanked || d.merge == mergeTop && !d.passage {
			out = append(out, spreadLane{Name: d.name, Mid: d.merge == mergeMidRanked, Direct: d.direct})
		}
	}
	return out
}

var spreadTmpl = sync.OnceValue(func() *template.Template {
	// read writes a table's read marker (sql/lanes/reads.sql), which the rounds' form writes out.
	return template.Must(template.New("spread").Funcs(template.FuncMap{"read": readMarker}).Parse(sqltext.Spread))
})

// spreadPiece is the block name of sql/citus/spread.sql for data.
func spreadPiece(name string, data any) string {
	var b strings.Builder
	if err := spreadTmpl().ExecuteTemplate(&b, name, data); err != nil {
		panic("statement: sql/citus/spread.sql: " + err.Error()) // the template and its data are the package's own
	}
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "--") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// cteSpan returns where the WITH query name's definition is in text: from its name at the
// start of a line to its closing parenthesis. The contract of a fragment whose WITH query a
// round replaces or takes: the query starts its line with "name AS (" or "name AS
// MATERIALIZED (".
func cteSpan(text, name string) (int, int, error) {
	start, open := -1, 0
	for _, head := range []string{name + " AS (", name + " AS MATERIALIZED ("} {
		if strings.HasPrefix(text, head) {
			start, open = 0, len(head)-1
			break
		}
		if i := strings.Index(text, "\n"+head); i >= 0 {
			start, open = i+1, i+len(head)
			break
		}
	}
	if start < 0 {
		return 0, 0, fmt.Errorf("statement: no WITH query %s to bind", name)
	}
	depth, quoted := 0, false
	for i := open; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return start, i + 1, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("statement: WITH query %s does not close", name)
}

// cteOf is the WITH query name's definition in text.
func cteOf(text, name string) (string, error) {
	a, b, err := cteSpan(text, name)
	if err != nil {
		return "", err
	}
	return text[a:b], nil
}

// replaceCTE returns text with the WITH query name defined by def instead.
func replaceCTE(text, name, def string) (string, error) {
	a, b, err := cteSpan(text, name)
	if err != nil {
		return "", err
	}
	return text[:a] + def + text[b:], nil
}

// replaceOnce replaces old in text, which must hold it exactly once.
func replaceOnce(text, old, new string) (string, error) {
	if n := strings.Count(text, old); n != 1 {
		return "", fmt.Errorf("statement: %q is in the fragment %d times, want once", old, n)
	}
	return strings.Replace(text, old, new, 1), nil
}

// spreadForms holds each shape's spreadForm (or the error building it).
var spreadForms sync.Map // Shape -> spreadBuilt

type spreadBuilt struct {
	f   *spreadForm
	err error
}

func spreadFormOf(shape Shape) (*spreadForm, error) {
	shape.Routed = false
	if v, ok := spreadForms.Load(shape); ok {
		b := v.(spreadBuilt)
		return b.f, b.err
	}
	f, err := buildSpread(shape)
	spreadForms.Store(shape, spreadBuilt{f, err})
	return f, err
}

// buildSpread writes the rounds' texts for shape (a Statement's, its plan as Build left it).
func buildSpread(shape Shape) (*spreadForm, error) {
	plan := shape.Plan
	needs := planInputs(plan)
	d := spreadData{
		Lexical: needs[inLexical], Entities: needs[inEntities],
		BM25: plan.Has(BM25) || plan.Has(Graph), Vector: shape.Dim > 0 && needs[inVector],
		Title: plan.Has(Title), Temporal: plan.Has(Temporal),
		Context: plan.Has(Context), Graph: plan.Has(Graph), Plain: plainLanes(plan),
	}
	f := &spreadForm{}

	// gather: the statement's own inputs, unbound.
	ctes := []string{fragment("visible", 0)}
	if d.Lexical {
		ctes = append(ctes, fragment("lexical", 0))
	}
	if d.Entities {
		ctes = append(ctes, inputFragment(inEntities, shape))
	}
	if d.Title {
		ctes = append(ctes, fragment("title", 0))
	}
	gather := withQuery(ctes, spreadPiece("gather", d))

	// lanes: the statistics, the terms' counts and the probes bound to the merged ones.
	vis, err := bindStats(fragment("visible", 0))
	if err != nil {
		return nil, err
	}
	ctes = []string{vis}
	if needs[inVector] {
		ctes = append(ctes, inputFragment(inVector, shape))
	}
	if d.Lexical {
		lex, err := replaceOnce(fragment("lexical", 0), "FROM {{recall.bm25_terms}} t WHERE t.term = q.term",
			"FROM "+spreadPiece("terms_from", d)+" WHERE t.term = q.term")
		if err != nil {
			return nil, err
		}
		ctes = append(ctes, lex)
	}
	if d.Entities {
		ctes = append(ctes, spreadPiece("mention_entities", d))
	}
	for _, l := range plan.Lanes() {
		if l == Graph {
			continue
		}
		frag := fragment(lanes[l].name, shape.Dim)
		if l == Title {
			if frag, err = replaceCTE(frag, "title_sources", spreadPiece("title_sources", d)); err != nil {
				return nil, err
			}
		}
		ctes = append(ctes, frag)
	}
	ctes = append(ctes, spreadPiece("lanes", d), fragment("output_access", 0))
	lanesText := withQuery(ctes, spreadPiece("lanes_select", d))

	tail, err := spreadTail(shape, d)
	if err != nil {
		return nil, err
	}
	for _, t := range []struct {
		text string
		to   **reads
	}{{gather, &f.gather}, {lanesText, &f.lanes}, {tail.walk, &f.walk}, {tail.hits, &f.hits}, {tail.output, &f.output}} {
		if t.text == "" {
			continue
		}
		if *t.to, err = parseReads(t.text, readsRouted, shape.Dim); err != nil {
			return nil, err
		}
	}
	if f.rank = tail.rank; strings.Contains(f.rank, "{{") {
		return nil, fmt.Errorf("statement: the rank round, which reads no table, holds a marker")
	}
	return f, nil
}

// spreadTexts are the walk, rank, hits and output rounds' texts before their form.
type spreadTexts struct{ walk, rank, hits, output string }

// spreadTail writes the walk, rank, hits and output rounds' texts.
func spreadTail(shape Shape, d spreadData) (spreadTexts, error) {
	var f spreadTexts
	if d.Graph {
		walk := fragment("graph_walk", 0)
		f.walk = withQuery([]string{spreadPiece("graph_seeds", d), walk}, spreadPiece("walk", d))
		index, err := cteOf(walk, "graph_index")
		if err != nil {
			return f, err
		}
		f.rank = withQuery([]string{spreadPiece("graph_nodes", d), index, spreadPiece("graph_pairs", d), fragment("graph_rank", 0)},
			spreadPiece("rank", d))
	}
	// output: output.sql over the k the engine fused.
	out, err := replaceCTE(fragment("output", 0), "output_top", spreadPiece("output_top", d))
	if err != nil {
		return f, err
	}
	hits, err := cteOf(out, "output_hits")
	if err != nil {
		return f, err
	}
	f.hits = withQuery([]string{spreadPiece("output_top", d), hits}, spreadPiece("hits", d))
	var ctes []string
	if d.Entities {
		ctes = append(ctes, spreadPiece("mention_entities", d))
	}
	if d.Graph {
		ctes = append(ctes, spreadPiece("graph_top", d))
	}
	out = strings.Replace(out, "{{graph_context}}", graphContext(shape.Plan, d.Entities), 1)
	f.output = withQuery(append(ctes, out), "")
	return f, nil
}

// bindStats is visible.sql with visible_stats summed over the bound statistics of every set
// the caller sees (gathered from every worker) instead of the worker's own sets.
func bindStats(vis string) (string, error) {
	def, err := cteOf(vis, "visible_stats")
	if err != nil {
		return "", err
	}
	bound, err := replaceOnce(def, "FROM visible_sets", "FROM "+spreadPiece("visible_stats_from", nil))
	if err != nil {
		return "", err
	}
	return replaceCTE(vis, "visible_stats", bound)
}

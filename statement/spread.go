package statement

import (
	"fmt"
	"regexp"
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

// spreadForm holds a shape's texts for the rounds: routed (bound to @route, written for a
// worker's sets by shardSets), but rank, which runs on the coordinator.
type spreadForm struct {
	gather, lanes, walk, hits, output string
	rank                              string
}

// spreadData is what sql/citus/spread.sql's blocks test.
type spreadData struct {
	Lexical, Entities                                      bool
	BM25, Vector, Mention, Title, Temporal, Context, Graph bool
}

var spreadTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("spread").Parse(sqltext.Spread))
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
// start of a line to its closing parenthesis.
func cteSpan(text, name string) (int, int, error) {
	re := regexp.MustCompile(`(?m)^` + name + `(?: \([^)]*\))? AS (?:MATERIALIZED )?\(`)
	loc := re.FindStringIndex(text)
	if loc == nil {
		return 0, 0, fmt.Errorf("statement: no WITH query %s to bind", name)
	}
	depth, quoted := 0, false
	for i := loc[1] - 1; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return loc[0], i + 1, nil
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
		Mention: plan.Has(Mention), Title: plan.Has(Title), Temporal: plan.Has(Temporal),
		Context: plan.Has(Context), Graph: plan.Has(Graph),
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
	f.gather = withQuery(ctes, spreadPiece("gather", d))

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
		lex, err := replaceOnce(fragment("lexical", 0), "FROM recall.bm25_terms t WHERE t.term = q.term",
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
	f.lanes = withQuery(ctes, spreadPiece("lanes_select", d))

	if err := spreadTail(f, shape, d); err != nil {
		return nil, err
	}
	for _, t := range []*string{&f.gather, &f.lanes, &f.walk, &f.hits, &f.output} {
		if *t == "" {
			continue
		}
		if m := markerRE.FindString(*t); m != "" {
			return nil, fmt.Errorf("statement: marker %s left in a cross-worker round", m)
		}
		if *t, err = routeSQL(*t); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// spreadTail writes the walk, rank, hits and output rounds' texts of f.
func spreadTail(f *spreadForm, shape Shape, d spreadData) error {
	if d.Graph {
		walk := fragment("graph_walk", 0)
		f.walk = withQuery([]string{spreadPiece("graph_seeds", d), walk}, spreadPiece("walk", d))
		index, err := cteOf(walk, "graph_index")
		if err != nil {
			return err
		}
		f.rank = withQuery([]string{spreadPiece("graph_nodes", d), index, spreadPiece("graph_pairs", d), fragment("graph_rank", 0)},
			spreadPiece("rank", d))
	}
	// output: output.sql over the k the engine fused.
	out, err := replaceCTE(fragment("output", 0), "output_top", spreadPiece("output_top", d))
	if err != nil {
		return err
	}
	hits, err := cteOf(out, "output_hits")
	if err != nil {
		return err
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
	return nil
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

// Package statement owns the recall statement: it composes the lanes of a plan into one SQL
// statement (one CTE per lane, then Reciprocal Rank Fusion), caches it per shape, binds every
// tunable as a named parameter, and runs it as the caller under row-level security.
package statement

import (
	"bufio"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/recall-engine/recall/sql"
)

// MaxDim is the largest embedding dimension pgvector's HNSW indexes.
const MaxDim = 2000

// Shape is what changes the statement's text; everything else is a bind. Dim is the query
// embedding's dimension (0: no vector, so the vector lane is left out); Fuzzy compiles the
// trigram branch of entity matching.
type Shape struct {
	Dim   int
	Fuzzy bool
	Plan  Plan
	// Routed compiles the form that Citus sends to the shard of the caller's one scope set
	// (routed.go).
	Routed bool
}

// Statement is one compiled recall statement.
type Statement struct {
	Shape Shape
	SQL   string
	// Binds are the named parameters the SQL uses, sorted.
	Binds []string
	// Lanes are the lanes compiled in, in output order.
	Lanes []Lane
	// reads is the text cut at its tables' reads and probes' calls (forms.go), from which the
	// routed form's shard forms are written.
	reads *reads
}

// ErrEmptyPlan is returned by Build for a plan that runs no lane (after dropping the vector
// lane when the shape has no dimension).
var ErrEmptyPlan = errors.New("statement: the plan runs no lane")

var (
	// A named bind: @ followed by an identifier, not preceded by @ or < (the @@, <@ operators).
	bindRE = regexp.MustCompile(`(^|[^@<])@([a-z_][a-z0-9_]*)`)
)

// fragment reads sql/lanes/<name>.sql without its comments and fills its markers: {{dim}},
// the embedding dimension, and {{filter}}, the recall.filter record of the filter binds.
func fragment(name string, dim int) string {
	b, err := sqltext.Lanes.ReadFile("lanes/" + name + ".sql")
	if err != nil {
		panic(fmt.Sprintf("statement: missing fragment %s: %v", name, err)) // embedded at build time
	}
	var out strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "--") || strings.TrimSpace(line) == "" {
			continue
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	return strings.NewReplacer("{{dim}}", strconv.Itoa(dim), "{{filter}}", filterRecord, "{{relation_holds}}", relationHolds).Replace(strings.TrimRight(out.String(), "\n"))
}

// inputFragment is the WITH query of input in for shape.
func inputFragment(in input, shape Shape) string {
	switch {
	case in == inVector && shape.Dim > 0:
		return fragment("vector_hits", shape.Dim)
	case in == inVector:
		return "vector_hits AS (SELECT NULL::bigint AS id, NULL::float8 AS distance WHERE false)"
	case in == inLexical:
		return fragment("lexical", 0)
	case shape.Fuzzy:
		return fragment("mention_fuzzy", 0)
	}
	return fragment("mention_exact", 0)
}

// Build composes the statement for shape: the caller's scope sets and counts, the inputs the
// plan's lanes share, each lane's fragment, then the fusion. It is deterministic: the same
// shape gives the same text, byte for byte.
func Build(shape Shape) (*Statement, error) {
	if shape.Dim < 0 || shape.Dim > MaxDim {
		return nil, fmt.Errorf("statement: dimension %d out of range 0..%d", shape.Dim, MaxDim)
	}
	plan := shape.Plan
	if shape.Dim == 0 {
		plan &^= Only(Vector)
	}
	if plan == 0 {
		return nil, ErrEmptyPlan
	}
	shape.Plan = plan
	ctes := []string{fragment("visible", 0)}
	needs := planInputs(plan)
	for in := range numInputs {
		if needs[in] {
			ctes = append(ctes, inputFragment(in, shape))
		}
	}
	for _, l := range plan.Lanes() {
		for _, f := range l.fragments() {
			ctes = append(ctes, fragment(f, shape.Dim))
		}
	}
	ctes = append(ctes, fusion(plan), fragment("output_access", 0), fragment("output", 0))

	sql := withQuery(ctes, "")
	sql = strings.Replace(sql, "{{graph_context}}", graphContext(plan, needs[inEntities]), 1)
	form := readsSingle
	if shape.Routed {
		form = readsRouted
	}
	rd, err := parseReads(sql, form, shape.Dim)
	if err != nil {
		return nil, err
	}
	sql = rd.fill(byForm(form))
	binds := map[string]bool{}
	for _, m := range bindRE.FindAllStringSubmatch(sql, -1) {
		binds[m[2]] = true
	}
	names := make([]string, 0, len(binds))
	for n := range binds {
		names = append(names, n)
	}
	slices.Sort(names)
	return &Statement{Shape: shape, SQL: sql, Binds: names, Lanes: plan.Lanes(), reads: rd}, nil
}

// planInputs reports which shared inputs the lanes of plan read.
func planInputs(plan Plan) (needs [numInputs]bool) {
	for _, l := range plan.Lanes() {
		for _, in := range lanes[l].inputs {
			needs[in] = true
		}
	}
	return needs
}

// withQuery is one statement of the WITH queries ctes and then sel (empty when the last of
// ctes ends with the statement's own SELECT).
func withQuery(ctes []string, sel string) string {
	return "WITH RECURSIVE\n" + strings.Join(ctes, ",\n") + "\n" + sel
}

// graphContext is output.sql's graph context expression for plan: the relations between a
// candidate's entities and the query's (graph_context.sql), ranked by the graph lane's mass
// when the plan runs it; NULL when the plan finds no query entities.
func graphContext(plan Plan, entities bool) string {
	if !entities {
		return "NULL::jsonb"
	}
	mass := func(end string) string {
		if !plan.Has(Graph) {
			return "0::float8"
		}
		return "coalesce((SELECT t.mass FROM graph_top t WHERE t.id = r." + end + "), 0)"
	}
	return strings.NewReplacer("{{graph_mass_src}}", mass("src_id"), "{{graph_mass_dst}}", mass("dst_id")).Replace(fragment("graph_context", 0))
}

// fusionLane is a lane as sql/lanes/fusion.sql's template reads it.
type fusionLane struct {
	Name                string
	Index               int
	In, Direct, Passage bool
}

// fusionTmpl is sql/lanes/fusion.sql without its comments, parsed once.
var fusionTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("fusion").Parse(fragment("fusion", 0)))
})

// fusion renders the candidates and fused_rrf CTEs for plan (sql/lanes/fusion.sql): every
// lane's rows, then one row per memory with every lane's rank and score and the RRF sum.
func fusion(plan Plan) string {
	var data struct{ Plan, All []fusionLane }
	for _, l := range Lanes() {
		fl := fusionLane{Name: l.String(), Index: int(l), In: plan.Has(l), Direct: lanes[l].direct, Passage: lanes[l].passage}
		data.All = append(data.All, fl)
		if fl.In {
			data.Plan = append(data.Plan, fl)
		}
	}
	var b strings.Builder
	if err := fusionTmpl().Execute(&b, data); err != nil {
		panic("statement: sql/lanes/fusion.sql: " + err.Error()) // the template and its data are the package's own
	}
	return b.String()
}

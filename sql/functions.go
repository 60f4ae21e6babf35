package sqltext

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
)

// FunctionFiles are the files that define recall's database functions (and the triggers and
// probe indexes that go with them), in the order migrations.Up applies them. Each is a Go
// text/template over FunctionData and functions.tmpl, and every statement in it is repeatable
// (CREATE OR REPLACE, IF NOT EXISTS, GRANT): applying a file again changes nothing.
var FunctionFiles = []string{
	"lanes/filter.sql",
	"lanes/local_shard.sql",
	"lanes/entity_probe.sql",
	"lanes/title_probe.sql",
	"lanes/visible_corpus.sql",
	"lanes/vector_exact.sql",
	"write/lexemes.sql",
	"write/bm25.sql",
	"write/vector_index.sql",
	"write/title_trigrams.sql",
	"write/entity_trigrams.sql",
	"write/entity_resolve.sql",
	"write/relation_validity.sql",
	"write/erase.sql",
	"keys/lookup.sql",
	"engine/apply_scopes.sql",
}

// A Band is one part of a trigram index split by the indexed text's distinct trigram count
// T: Lo <= T <= Hi, no upper bound when Hi is 0. Similarity >= floor between a text of T and
// an n-gram of G trigrams needs floor G <= T <= G / floor, so a probe reads only the parts
// that bound reaches. The parts grow by about 1 / 0.6 (the title floor), so an n-gram reads
// about two of them.
type Band struct{ Lo, Hi int }

// TitleBands and NameBands split the source title and entity name trigram indexes.
var (
	TitleBands = []Band{{1, 8}, {9, 14}, {15, 24}, {25, 40}, {41, 66}, {67, 110}, {111, 0}}
	NameBands  = []Band{{1, 8}, {9, 14}, {15, 24}, {25, 40}, {41, 0}}
)

// Name is the band's part of its index name: "9_14", "111_up".
func (b Band) Name() string {
	if b.Hi == 0 {
		return fmt.Sprintf("%d_up", b.Lo)
	}
	return fmt.Sprintf("%d_%d", b.Lo, b.Hi)
}

// Pred is the band's predicate on a trigram count, as the partial index and the probe write it.
func (b Band) Pred() string {
	switch {
	case b.Hi == 0:
		return fmt.Sprintf(">= %d", b.Lo)
	case b.Lo <= 1:
		return fmt.Sprintf("<= %d", b.Hi)
	}
	return fmt.Sprintf("BETWEEN %d AND %d", b.Lo, b.Hi)
}

// Reach is the probe's test that an n-gram of q.n trigrams can match a text of the band at
// similarity floor (1e-9 absorbs rounding of floor * n).
func (b Band) Reach() string {
	var c []string
	if b.Hi > 0 {
		c = append(c, fmt.Sprintf("ceil(floor * q.n - 1e-9) <= %d", b.Hi))
	}
	if b.Lo > 1 {
		c = append(c, fmt.Sprintf("floor(q.n / floor + 1e-9) >= %d", b.Lo))
	}
	return strings.Join(c, " AND ")
}

// FunctionData is what the function files are rendered with.
type FunctionData struct {
	TitleBands, NameBands []Band
	// Routed renders a probe's form for the routed statement on Citus (its name ends in
	// _routed, its first argument is the scope set every table it reads is bound to).
	Routed bool
	// Shard, with Routed, renders a probe's form for a statement read on the worker that
	// holds the set's shards (its name ends in _shard): it reads those shard tables, named
	// at each call, by EXECUTE (lanes/local_shard.sql).
	Shard bool
}

type bandIndexes struct{ Like, Keep string }

// postings names a trigram postings table (migrations 00004, 00007) and its row id column,
// for the trigram_candidates template.
// Routed binds it to the routed probes' scope set (the route argument).
type postings struct {
	Table, ID string
	Routed    bool
}

// byScope names a probe's trigram postings table and the table whose rows it indexes, for
// the probe_by_scope template (the probe's choice of way); Routed as for postings.
type byScope struct {
	Table, Rel string
	Routed     bool
}

// postingsTrigger names a trigram postings table's trigger (the trigram_postings_trigger
// template): its function, the table and its row id column, the parent table and the field
// whose trigrams it keeps.
type postingsTrigger struct{ Fn, Table, ID, Parent, Field string }

var tmpl = template.Must(template.New("functions.tmpl").Funcs(template.FuncMap{
	// bandIndexes names the band indexes of prefix: a LIKE pattern for all of them and the
	// list of those the bands keep.
	"bandIndexes": func(prefix string, bands []Band) bandIndexes {
		keep := make([]string, len(bands))
		for i, b := range bands {
			keep[i] = fmt.Sprintf("'%s_%s_idx'", prefix, b.Name())
		}
		return bandIndexes{Like: strings.ReplaceAll(prefix, "_", `\_`) + `\_%\_idx`, Keep: strings.Join(keep, ", ")}
	},
	"postings": func(table, id string, routed bool) postings { return postings{table, id, routed} },
	"byScope":  func(table, rel string, routed bool) byScope { return byScope{table, rel, routed} },
	// routed is the data with Routed set, for a file's routed probe (sql/lanes/entity_probe.sql).
	"routed": func(d FunctionData) FunctionData { d.Routed = true; return d },
	// shard is the data with Routed and Shard set, for a file's shard probe.
	"shard": func(d FunctionData) FunctionData { d.Routed, d.Shard = true, true; return d },
	"trigger": func(fn, table, id, parent, field string) postingsTrigger {
		return postingsTrigger{fn, table, id, parent, field}
	},
	// gone names every band index of an earlier prefix, for drop_stale_bands to drop.
	"gone": func(prefix string) bandIndexes {
		return bandIndexes{Like: strings.ReplaceAll(prefix, "_", `\_`) + `\_%\_idx`}
	},
}).ParseFS(files, "functions.tmpl"))

// Function returns function file name, rendered.
func Function(name string) (string, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("sqltext: function file %s: %w", name, err)
	}
	var t *template.Template
	t, err = template.Must(tmpl.Clone()).Funcs(template.FuncMap{
		// dynamic renders template name with d as the text of an EXECUTE (dynamicSQL).
		"dynamic": func(name string, d FunctionData, vars string) (string, error) {
			var out strings.Builder
			if err := t.ExecuteTemplate(&out, name, d); err != nil {
				return "", err
			}
			return dynamicSQL(out.String(), strings.Fields(vars))
		},
	}).New(name).Parse(string(b))
	if err != nil {
		return "", fmt.Errorf("sqltext: function file %s: %w", name, err)
	}
	var out strings.Builder
	if err := t.Execute(&out, FunctionData{TitleBands: TitleBands, NameBands: NameBands}); err != nil {
		return "", fmt.Errorf("sqltext: function file %s: %w", name, err)
	}
	return out.String(), nil
}

// A FunctionBody is one function a file defines, with its body as the server stores it
// (pg_proc.prosrc: the text between the $$ delimiters).
type FunctionBody struct {
	File, Name, Body string
}

// bodyRE finds each function a file makes, whether by CREATE OR REPLACE or, after a DROP (to
// rename a parameter, which REPLACE cannot), by CREATE.
var bodyRE = regexp.MustCompile(`(?s)CREATE (?:OR REPLACE )?FUNCTION (recall\.[a-z0-9_]+)\(.*?\bAS \$\$(.*?)\$\$`)

// StaleFunctions returns the function files' functions whose body stored (StoredFunctions'
// rows: each name's bodies, overloads included) lacks: missing, or changed since.
func StaleFunctions(stored map[string][]string) ([]FunctionBody, error) {
	bodies, err := FunctionBodies()
	if err != nil {
		return nil, err
	}
	var out []FunctionBody
	for _, b := range bodies {
		if !slices.Contains(stored[b.Name], b.Body) {
			out = append(out, b)
		}
	}
	return out, nil
}

// FunctionBodies lists the functions every function file defines.
func FunctionBodies() ([]FunctionBody, error) {
	var out []FunctionBody
	for _, f := range FunctionFiles {
		text, err := Function(f)
		if err != nil {
			return nil, err
		}
		for _, m := range bodyRE.FindAllStringSubmatch(text, -1) {
			out = append(out, FunctionBody{File: f, Name: m[1], Body: m[2]})
		}
	}
	return out, nil
}

var (
	// tableRefRE is a name in schema recall, and an opening parenthesis after it when it is a
	// function's.
	tableRefRE = regexp.MustCompile(`\brecall\.([a-z_][a-z0-9_]*)\b(\s*\()?`)
	// commentLineRE is a line holding only an SQL comment, which dynamicSQL drops.
	commentLineRE = regexp.MustCompile(`(?m)^[ \t]*--.*\n`)
	// qTagRE finds dynamicSQL's own dollar-quote delimiter.
	qTagRE = regexp.MustCompile(`\$q\$`)
)

// dynamicSQL turns a probe's query, as PL/pgSQL runs it, into the text its shard form runs by
// EXECUTE, written as a dollar-quoted literal, without its comment lines: every table of schema recall becomes the
// placeholder @@table@@ (the shard form puts the shard's name in its place), and every
// variable of vars becomes its parameter, $1 for the first (a word followed by an opening
// parenthesis is a function's name, as floor( is, and stays).
func dynamicSQL(text string, vars []string) (string, error) {
	text = commentLineRE.ReplaceAllString(text, "")
	text = tableRefRE.ReplaceAllStringFunc(text, func(m string) string {
		g := tableRefRE.FindStringSubmatch(m)
		if g[2] != "" {
			return m
		}
		return "@@" + g[1] + "@@"
	})
	if len(vars) > 0 {
		varRE := regexp.MustCompile(`\b(` + strings.Join(vars, "|") + `)\b(\s*\()?`)
		text = varRE.ReplaceAllStringFunc(text, func(m string) string {
			g := varRE.FindStringSubmatch(m)
			if g[2] != "" {
				return m
			}
			return "$" + strconv.Itoa(slices.Index(vars, g[1])+1)
		})
	}
	if qTagRE.MatchString(text) {
		return "", fmt.Errorf("sqltext: a dynamic query holds its own delimiter $q$")
	}
	return "$q$" + text + "$q$", nil
}

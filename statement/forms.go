package statement

import (
	"fmt"
	"slices"
	"strings"
	"text/template"

	sqltext "github.com/recall-engine/recall/sql"
)

// The read forms. A fragment of the statement (sql/lanes/) writes what depends on where the
// statement runs as a marker (sql/lanes/reads.sql lists them and the contract each keeps),
// and each form writes every marker out from its own file: one server's (reads.sql), the
// routed form Citus sends to one scope set's shard (sql/citus/routed.sql), the form read on
// that shard's worker (sql/citus/shard.sql), and the shards of several sets on one worker
// (shard_read.sql, shard_probe.sql). The text around a marker is never rewritten.
//
// A marker is either written out whole by the form's block of its name (visible_corpus,
// memories_reltuples, vector_nearest; what the block writes may hold table markers again),
// or left as a hole: a table's read or a probe's call, which the forms that depend on a
// placement fill at each call.

// hole is a table's read ({{recall.<table>}}: table) or a probe's call ({{probe_<kind>
// <args>}}: probe and args) in a parsed text.
type hole struct {
	table, probe, args string
}

// reads is a text cut at its holes: text[i] comes before holes[i], and text has one more.
type reads struct {
	text  []string
	holes []hole
}

// formTmpl parses a read form's file, whole-line comments left out (they name the markers).
func formTmpl(name, file string) *template.Template {
	var lines []string
	for _, l := range strings.Split(file, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			lines = append(lines, l)
		}
	}
	return template.Must(template.New(name).Funcs(template.FuncMap{"read": readMarker}).Parse(strings.Join(lines, "\n")))
}

// readMarker is a table's read marker, for a template's read function: what the form of the
// text it is written into writes out.
func readMarker(table string) string { return "{{recall." + table + "}}" }

var (
	readsSingle = formTmpl("reads", sqltext.Reads)
	readsRouted = formTmpl("routed", sqltext.Routed)
	readsShard  = formTmpl("shard", sqltext.Shard)
)

// exec is form's block name for data.
func exec(form *template.Template, name string, data any) string {
	var b strings.Builder
	if err := form.ExecuteTemplate(&b, name, data); err != nil {
		panic("statement: read form " + form.Name() + ": " + err.Error()) // the files and their data are the package's own
	}
	return b.String()
}

// distributedTables are the tables migrations.Distribute distributes by scope set that the
// statement reads.
var distributedTables = strings.Split(distributed, "|")

// parseReads cuts sql at its markers, writing out the whole ones by form (the single server's
// or the routed one's), dim the statement's dimension. It fails on a marker it does not know.
func parseReads(sql string, form *template.Template, dim int) (*reads, error) {
	r := &reads{}
	var cur strings.Builder
	var walk func(s string) error
	walk = func(s string) error {
		for {
			i := strings.Index(s, "{{")
			if i < 0 {
				cur.WriteString(s)
				return nil
			}
			j := strings.Index(s[i:], "}}")
			if j < 0 {
				return fmt.Errorf("statement: a marker does not close: %.40q", s[i:])
			}
			cur.WriteString(s[:i])
			marker := s[i+2 : i+j]
			s = s[i+j+2:]
			name, args, _ := strings.Cut(marker, " ")
			switch {
			case strings.HasPrefix(name, "recall.") && args == "" && slices.Contains(distributedTables, name[len("recall."):]):
				r.cut(&cur, hole{table: name[len("recall."):]})
			case name == "probe_entities" || name == "probe_titles":
				r.cut(&cur, hole{probe: name[len("probe_"):], args: args})
			case (name == "visible_corpus" || name == "memories_reltuples" || name == "vector_nearest") && args == "":
				if err := walk(exec(form, name, struct{ Dim int }{dim})); err != nil {
					return err
				}
			default:
				return fmt.Errorf("statement: marker {{%s}} left in the statement", marker)
			}
		}
	}
	if err := walk(sql); err != nil {
		return nil, err
	}
	r.text = append(r.text, cur.String())
	return r, nil
}

// cut ends the text before h.
func (r *reads) cut(cur *strings.Builder, h hole) {
	r.text = append(r.text, cur.String())
	r.holes = append(r.holes, h)
	cur.Reset()
}

// fill writes r with each hole written by write.
func (r *reads) fill(write func(h hole) string) string {
	var b strings.Builder
	for i, h := range r.holes {
		b.WriteString(r.text[i])
		b.WriteString(write(h))
	}
	b.WriteString(r.text[len(r.holes)])
	return b.String()
}

// byForm writes a hole by form's table and probe blocks.
func byForm(form *template.Template) func(h hole) string {
	return func(h hole) string {
		if h.table != "" {
			return exec(form, "table", struct{ Name string }{h.table})
		}
		return exec(form, "probe", struct{ Kind, Args string }{h.probe, h.args})
	}
}

package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/internal/command/cli"
)

// tracedQuery is one line of a traces file: a judged query, its judgments and its trace.
type tracedQuery struct {
	Query eval.Query    `json:"query"`
	Qrels eval.Qrels    `json:"qrels"`
	Trace *recall.Trace `json:"trace"`
	// Parent maps the trace's candidates cut from a judged document to it (eval.Messages):
	// the judgments are the documents', and a ranking is scored by them (eval.ToParents).
	Parent map[string]string `json:"parent,omitempty"`
	// Sessions is the session of each candidate and of every turn of the judged documents'
	// sessions (--session-field), so that LongMemEval's session measures of a reordering
	// are the engine's: a judged turn not among the candidates still names its session.
	Sessions eval.Sessions `json:"sessions,omitempty"`
}

// judged is the judgment of candidate id: its parent's, when it has one.
func (tq *tracedQuery) judged(id string) int {
	if p, ok := tq.Parent[id]; ok {
		id = p
	}
	return tq.Qrels[id]
}

// score is metric m of a ranking of tq's candidates, by their parents.
func (tq *tracedQuery) score(m eval.Metric, ranked []string) float64 {
	return m.Fn(eval.ToParents(ranked, tq.Parent), tq.Qrels)
}

// tracesCmd: aizk-eval traces --dataset DIR [mapping flags] --out FILE[.gz]
func (m *Main) tracesCmd(ctx context.Context, args []string) error {
	fs := m.Flags("traces")
	var d datasetFlags
	m.datasetFlags(fs, &d)
	out := fs.String("out", "", "write the traces to FILE, one JSON line per judged query (gzipped when FILE ends in .gz)")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: aizk-eval traces --dataset DIR --out FILE [flags]\n\n"+
			"Reads every judged query's trace (each lane's candidates with ranks and scores, their\n"+
			"neighbours, the query's time) once, and writes them with the judgments, so that\n"+
			"aizk-eval tune --traces FILE fits the fusion and the order without the database.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	d.visit(fs)
	if len(pos) > 0 || d.dir == "" || *out == "" {
		fs.Usage()
		return fmt.Errorf("%w: --dataset and --out are required", cli.ErrUsage)
	}
	ds, c, e, err := m.openDataset(ctx, d)
	if err != nil {
		return err
	}
	defer c.Close()
	traces, queries, err := m.traces(ctx, d, e, ds)
	if err != nil {
		return err
	}
	tq := make([]tracedQuery, len(queries))
	sessions := sessionsOf(ds, d)
	turns := map[string][]string{} // a session's documents
	for id, sess := range sessions {
		turns[sess] = append(turns[sess], id)
	}
	for i, q := range queries {
		if _, ok := q.Meta[eval.SetField]; !ok { // a set alone: named by its directory
			q.Meta = withSet(q.Meta, setName(d.dir))
		}
		tq[i] = tracedQuery{Query: q, Qrels: ds.Qrels[q.ID], Trace: traces[i]}
		for _, c := range traces[i].Candidates {
			if p, ok := ds.Parent[c.ExternalID]; ok && p != c.ExternalID {
				if tq[i].Parent == nil {
					tq[i].Parent = map[string]string{}
				}
				tq[i].Parent[c.ExternalID] = p
			}
		}
		tq[i].Sessions = judgedSessions(sessions, turns, tq[i].Qrels, traces[i])
	}
	if err := writeTraces(*out, tq); err != nil {
		return err
	}
	fmt.Fprintf(m.Stderr, "wrote %d traces to %s\n", len(tq), *out)
	return nil
}

// judgedSessions is the session of each of tr's candidates and of every document in the
// sessions of the documents rel judges relevant, or nil when the data set has no sessions.
func judgedSessions(sessions eval.Sessions, turns map[string][]string, rel eval.Qrels, tr *recall.Trace) eval.Sessions {
	if len(sessions) == 0 {
		return nil
	}
	out := eval.Sessions{}
	for _, c := range tr.Candidates {
		if s, ok := sessions[c.ExternalID]; ok {
			out[c.ExternalID] = s
		}
	}
	for id, g := range rel {
		if s, ok := sessions[id]; ok && g > 0 {
			for _, t := range turns[s] {
				out[t] = s
			}
		}
	}
	return out
}

// writeTraces writes tq to path, one JSON line each, gzipped when path ends in .gz.
func writeTraces(path string, tq []tracedQuery) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	var w io.Writer = f
	var gz *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		gz = gzip.NewWriter(f)
		w = gz
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range tq {
		if err := enc.Encode(&tq[i]); err != nil {
			_ = f.Close()
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		_ = f.Close()
		return err
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			_ = f.Close()
			return err
		}
	}
	return f.Close()
}

// readTraces reads a traces file.
func readTraces(path string) ([]tracedQuery, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close() //nolint:errcheck // read-only file
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = gz
	}
	dec := json.NewDecoder(bufio.NewReader(r))
	var out []tracedQuery
	for line := 1; ; line++ {
		var tq tracedQuery
		if err := dec.Decode(&tq); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: query %d: %w", path, line, err)
		}
		out = append(out, tq)
	}
}

// withSet returns a copy of meta naming the query's set.
func withSet(meta map[string]any, set string) map[string]any {
	out := map[string]any{eval.SetField: set}
	for k, v := range meta {
		out[k] = v
	}
	return out
}

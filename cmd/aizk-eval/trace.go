package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/statement"
)

// trace: aizk-eval trace "question" [--scope S] [--budget N] [--json] [--top N]
// or, on a dataset: aizk-eval trace --dataset DIR --query-id ID
func (m *Main) trace(ctx context.Context, args []string) error {
	fs := m.Flags("trace")
	var d datasetFlags
	m.datasetFlags(fs, &d)
	scopes := scopesFlag(fs)
	budget := fs.Int("budget", recall.DefaultBudget, "token budget")
	label := fs.String("label", "", "the asking speaker's name")
	asJSON := fs.Bool("json", false, "print the trace as JSON")
	top := fs.Int("top", 10, "rows of each lane and of the fused order to show")
	queryID := fs.String("query-id", "", "with --dataset: trace this judged query and explain its first relevant document")
	why := fs.String("why", "", "explain the candidate with this external id")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: aizk-eval trace \"question\" [flags]\n"+
			"       aizk-eval trace --dataset DIR --query-id ID [flags]\n\n"+
			"Runs one recall without recording access and shows each lane's candidates side by side,\n"+
			"the fused order with rerank scores and merit, what was packed or omitted and why, the\n"+
			"statement's shape and the timings.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	d.visit(fs)
	sub, err := m.traceSubject(ctx, d, *queryID, pos, recall.User{ID: "aizk-eval", Read: *scopes, Label: *label})
	if err != nil {
		if errors.Is(err, cli.ErrUsage) {
			fs.Usage()
		}
		return err
	}
	defer sub.close()
	e, user, question, relevant := sub.engine, sub.user, sub.question, sub.relevant
	tr, err := e.Trace(ctx, user, question, *budget, nil)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(traceJSON(tr))
	}
	renderTrace(m.Stdout, tr, *top)
	if *why != "" {
		fmt.Fprintln(m.Stdout, "\nwhy:")
		explain(m.Stdout, tr, *why)
	}
	if len(relevant) > 0 {
		// The first relevant document in merit order (or any, when none was found).
		best, bestRank := relevant[0], 1<<30
		for _, c := range tr.Candidates {
			for _, r := range relevant {
				if c.ExternalID == r && c.MeritRank > 0 && c.MeritRank < bestRank {
					best, bestRank = r, c.MeritRank
				}
			}
		}
		fmt.Fprintf(m.Stdout, "\nrelevant (qrels): %s\nwhy the first relevant document ranked where it did:\n", strings.Join(relevant, ", "))
		explain(m.Stdout, tr, best)
	}
	return nil
}

// explain writes why the candidate with external id ranked where it did.
func explain(w io.Writer, tr *recall.Trace, id string) {
	for i := range tr.Candidates {
		if tr.Candidates[i].ExternalID == id {
			fmt.Fprint(w, tr.Why(&tr.Candidates[i]))
			return
		}
	}
	for _, l := range tr.Left {
		if l.ExternalID == id {
			fmt.Fprintf(w, "%s: found, and left out: %s\n", id, l.Why)
			return
		}
	}
	fmt.Fprintf(w, "%s: not among the statement's %d candidates (no lane found it within its depth)\n", id, len(tr.Candidates))
}

// subject is what a trace asks: the engine, the asking user, the question, and the judged
// relevant documents of a dataset query.
type subject struct {
	engine   *recall.Engine
	user     recall.User
	question string
	relevant []string
	close    func()
}

// traceSubject opens the dataset's database for --dataset and --query-id, or the configured
// database for a quoted question.
func (m *Main) traceSubject(ctx context.Context, d datasetFlags, queryID string, pos []string, user recall.User) (subject, error) {
	switch {
	case d.dir != "" && queryID != "" && len(pos) == 0:
		ds, c, e, err := m.openDataset(ctx, d)
		if err != nil {
			return subject{}, err
		}
		text, ok := ds.Queries[queryID]
		if !ok {
			c.Close()
			return subject{}, fmt.Errorf("no query %q in %s", queryID, d.dir)
		}
		sub := subject{engine: e, user: user, question: text, close: c.Close}
		for _, x := range ds.Judged() {
			if x.ID == queryID {
				if sub.user, err = d.queryUser(x); err != nil {
					c.Close()
					return subject{}, err
				}
			}
		}
		for id, g := range ds.Qrels[queryID] {
			if g > 0 {
				sub.relevant = append(sub.relevant, id)
			}
		}
		for id, p := range ds.Parent { // --messages: a judged turn's messages
			if id != p && ds.Qrels[queryID][p] > 0 {
				sub.relevant = append(sub.relevant, id)
			}
		}
		slices.Sort(sub.relevant)
		return sub, nil
	case d.dir == "" && queryID == "" && len(pos) == 1:
		cfg, err := d.config(ctx, m.Getenv)
		if err != nil {
			return subject{}, err
		}
		c, err := m.Connect(ctx, true)
		if err != nil {
			return subject{}, err
		}
		cfg.Pool = c.Runtime
		e, err := recall.New(ctx, cfg)
		if err != nil {
			c.Close()
			return subject{}, err
		}
		if len(user.Read) == 0 {
			user.Read = []string{"default"}
		}
		return subject{engine: e, user: user, question: pos[0], close: c.Close}, nil
	}
	return subject{}, fmt.Errorf("%w: want a quoted question, or --dataset and --query-id", cli.ErrUsage)
}

// renderTrace writes each lane's top candidates side by side, the fused order, and the
// rest of the trace.
func renderTrace(w io.Writer, tr *recall.Trace, top int) {
	p := tr.Pack
	fmt.Fprintf(w, "question: %q\n", p.Query)
	if tr.SearchText != p.Query {
		fmt.Fprintf(w, "search text: %q\n", tr.SearchText)
	}
	if p.Window != nil {
		fmt.Fprintf(w, "time: %q read as [%s, %s)\n", p.Window.Text, p.Window.Start.Format(time.RFC3339), p.Window.End.Format(time.RFC3339))
	}
	fmt.Fprintf(w, "statement: plan %s, dimension %d, fuzzy entities %v, %d candidates (K %d)\n",
		tr.Shape.Plan, tr.Shape.Dim, tr.Shape.Fuzzy, len(tr.Candidates), tr.K)
	if tr.Idle != 0 {
		fmt.Fprintf(w, "not run, as they can find nothing for this question: %s\n", strings.Join(laneNames(tr.Idle.Lanes()), ", "))
	}
	fmt.Fprintln(w)
	lanes := tr.Shape.Plan.Lanes()
	// The id column fits the longest id shown, up to 40 characters; a longer id keeps its
	// head and tail ("standup-0114:1" and ":2" differ at the end).
	idW := 12
	for _, l := range lanes {
		for i := 0; i < top && i < len(tr.Lanes[l]); i++ {
			idW = max(idW, min(40, utf8.RuneCountInString(tr.Candidates[tr.Lanes[l][i]].ExternalID)))
		}
	}
	colW := idW + 14
	for _, l := range lanes {
		fmt.Fprintf(w, "%-*s", colW, fmt.Sprintf("%s (%d)", l, len(tr.Lanes[l])))
	}
	fmt.Fprintln(w)
	for i := range top {
		found := false
		var row strings.Builder
		for _, l := range lanes {
			cell := ""
			if i < len(tr.Lanes[l]) {
				c := tr.Candidates[tr.Lanes[l][i]]
				cell = fmt.Sprintf("%2d %-*s %7.3f", i+1, idW, clip(c.ExternalID, idW), c.Lanes[l].Score)
				found = true
			}
			fmt.Fprintf(&row, "%-*s", colW, cell)
		}
		if !found {
			break
		}
		fmt.Fprintln(w, strings.TrimRight(row.String(), " "))
	}
	fmt.Fprintf(w, "\nfused order (top %d): rank, id, fused score, lane ranks, rerank score, merit rank, decision\n", top)
	for i, c := range tr.Candidates {
		if i >= top {
			break
		}
		var ranks []string
		for _, l := range lanes {
			if r := c.Lanes[l].Rank; r > 0 {
				ranks = append(ranks, fmt.Sprintf("%s#%d", l, r))
			}
		}
		rr := "-"
		if c.RerankScore != nil {
			rr = fmt.Sprintf("%.3f", *c.RerankScore)
		}
		fmt.Fprintf(w, "%3d %-*s %.5f  %-40s %6s  merit %-3d %s\n", c.FusedRank, idW, clip(c.ExternalID, idW), c.Score, strings.Join(ranks, " "), rr, c.MeritRank, c.Decision)
	}
	if len(tr.Left) > 0 {
		fmt.Fprintf(w, "\nleft out (found, but they do not hold at the recall's as_of):\n")
		for _, l := range tr.Left {
			fmt.Fprintf(w, "    %-*s %s\n", idW, clip(l.ExternalID, idW), l.Why)
		}
	}
	fmt.Fprintf(w, "\npacked %d items, %d of %d tokens; omitted %d (%d tokens over budget)", len(p.Items), p.Used, p.Budget, len(p.Omitted), p.OmittedTokens)
	if p.Empty != "" {
		fmt.Fprintf(w, "; empty: %s", p.Empty)
	}
	fmt.Fprintln(w)
	for _, x := range p.Warnings {
		fmt.Fprintf(w, "warning: %s\n", x)
	}
	t := p.Timings
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }
	fmt.Fprintf(w, "timings ms: embed %s, entities %s, statement %s, rerank %s, pack %s, total %s\n",
		ms(t.Embed), ms(t.Entities), ms(t.Statement), ms(t.Rerank), ms(t.Pack), ms(t.Total))
}

// clip shortens s to n characters by cutting its middle: ids differ at their ends as often
// as at their starts.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// traceJSON is the trace as JSON: lanes by name, candidates with their fate.
func traceJSON(tr *recall.Trace) any {
	type cand struct {
		ID          string                       `json:"id"`
		FusedRank   int                          `json:"fused_rank"`
		MeritRank   int                          `json:"merit_rank"`
		Score       float64                      `json:"score"`
		RRF         float64                      `json:"rrf"`
		Lanes       map[string]statement.LaneHit `json:"lanes"`
		RerankScore *float32                     `json:"rerank_score,omitempty"`
		Direct      bool                         `json:"direct,omitempty"`
		Tokens      int                          `json:"tokens"`
		Decision    recall.Decision              `json:"decision"`
	}
	lanes := map[string][]string{}
	for _, l := range tr.Shape.Plan.Lanes() {
		ids := []string{}
		for _, i := range tr.Lanes[l] {
			ids = append(ids, tr.Candidates[i].ExternalID)
		}
		lanes[l.String()] = ids
	}
	cands := make([]cand, len(tr.Candidates))
	for i, c := range tr.Candidates {
		hits := map[string]statement.LaneHit{}
		for _, l := range statement.Lanes() {
			if c.Lanes[l].Rank > 0 {
				hits[l.String()] = c.Lanes[l]
			}
		}
		cands[i] = cand{c.ExternalID, c.FusedRank, c.MeritRank, c.Score, c.RRF, hits, c.RerankScore, c.Direct, c.Tokens, c.Decision}
	}
	return map[string]any{
		"question": tr.Pack.Query, "search_text": tr.SearchText, "plan": tr.Shape.Plan.String(), "not_run": laneNames(tr.Idle.Lanes()), "dim": tr.Shape.Dim,
		"k": tr.K, "lanes": lanes, "candidates": cands, "pack": tr.Pack, "left_out": append([]recall.LeftOut{}, tr.Left...),
	}
}

// scopesFlag declares --scope on fs (repeatable, comma-separated) and returns where the
// scopes read go: trace's and profile's caller.
func scopesFlag(fs *flag.FlagSet) *[]string {
	var scopes []string
	fs.Func("scope", "scope to read (repeat or comma-separate; default: default, or the dataset's)", func(v string) error {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				scopes = append(scopes, s)
			}
		}
		return nil
	})
	return &scopes
}

// laneNames are the lanes' names, in lane order.
func laneNames(ls []statement.Lane) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}

package eval

import (
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
)

// Markdown writes the report as a markdown document: the command that made it, a table of
// every arm (metrics, the pack's evidence recall, latency, the difference with maximal on the
// study's metric and its Holm-adjusted p), a table per group, and a reference to the plot
// written by SVG.
func (r *Report) Markdown(w io.Writer, command, svgName string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Plan study: %s\n\n", r.Dataset)
	fmt.Fprintf(&b, "%d judged queries. Made by:\n\n    %s\n\n", r.Queries, command)
	fmt.Fprintf(&b, "Metrics are means over the queries (trec_eval definitions). Latency is the whole\n"+
		"recall call per query, on this machine. Delta and p compare %s with maximal: paired\n"+
		"randomization test (10,000 trials), Holm-adjusted over the arms; * marks p_holm < 0.05.\n", r.Metric)
	if len(r.PackBudgets) > 0 {
		b.WriteString("pack@N is the share of a query's evidence in the pack the engine returns for a budget of\nN tokens.\n")
	}
	b.WriteString("\n")
	sig := map[string]Significance{}
	for _, s := range r.Significance {
		sig[s.Plan] = s
	}
	ms := reported(r.Plans)
	cols := []string{"plan"}
	for _, m := range ms {
		cols = append(cols, m.Name)
	}
	for _, bud := range r.PackBudgets {
		cols = append(cols, "pack@"+strconv.Itoa(bud))
	}
	cols = append(cols, "p50 ms", "p95 ms", "delta "+r.Metric, "p (Holm)")
	row(&b, cols)
	row(&b, dashes(len(cols)))
	for _, p := range r.Plans {
		cells := []string{p.Plan}
		for _, m := range ms {
			cells = append(cells, fmt.Sprintf("%.4f", p.Metrics[m.Name]))
		}
		for _, bud := range r.PackBudgets {
			v, ok := p.Pack[strconv.Itoa(bud)]
			if !ok { // a baseline: no pack
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, fmt.Sprintf("%.4f", v))
		}
		d, pv := "", ""
		if s, ok := sig[p.Plan]; ok {
			d, pv = fmt.Sprintf("%+.4f", s.Delta), fmt.Sprintf("%.4f", s.PHolm)
			if s.Significant {
				pv += " *"
			}
		}
		row(&b, append(cells, fmt.Sprintf("%.1f", p.P50ms), fmt.Sprintf("%.1f", p.P95ms), d, pv))
	}
	if f := r.Failures(); f != "" {
		b.WriteString("\n" + f + "\n")
	}
	r.stagesTable(&b)
	r.sessionTable(&b)
	r.groupTables(&b)
	if svgName != "" {
		fmt.Fprintf(&b, "\n![%s and p50 latency per arm](%s)\n", r.Metric, svgName)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sessionTable writes every arm's LongMemEval measures, when the study scored them.
func (r *Report) sessionTable(b *strings.Builder) {
	if len(r.Plans) == 0 {
		return
	}
	if _, ok := r.Plans[0].Metrics[SessionMetrics[0].Name]; !ok {
		return
	}
	b.WriteString("\nLongMemEval's measures (its definitions: recall_any, recall_all, ndcg_any over turns, and over\n" +
		"sessions read from the turn ranking until it names k sessions):\n\n")
	r.metricTable(b, SessionMetrics, func(p PlanResult) map[string]float64 { return p.Metrics })
}

// metricTable writes a table of every arm's value of each of ms, read by of.
func (r *Report) metricTable(b *strings.Builder, ms []Metric, of func(PlanResult) map[string]float64) {
	cols := []string{"plan"}
	for _, m := range ms {
		cols = append(cols, m.Name)
	}
	row(b, cols)
	row(b, dashes(len(cols)))
	for _, p := range r.Plans {
		cells := []string{p.Plan}
		for _, m := range ms {
			cells = append(cells, fmt.Sprintf("%.4f", of(p)[m.Name]))
		}
		row(b, cells)
	}
}

// Failures says, for the arms that had any, how many searches failed every try (each scored
// as a query that found nothing) and how many failed at least once; "" when none failed.
func (r *Report) Failures() string {
	var parts []string
	for _, p := range r.Plans {
		if p.Failed > 0 || p.Retried > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d failed, %d retried", p.Plan, p.Failed, p.Retried))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Failed searches (a search that failed every try scores as a query that found nothing; " +
		"latency includes the retries): " + strings.Join(parts, "; ") + "."
}

// groupTables writes, per group, every arm's metrics.
func (r *Report) groupTables(b *strings.Builder) {
	ms := reported(r.Plans)
	for _, g := range r.GroupNames() {
		fmt.Fprintf(b, "\n### %s = %s (%d queries)\n\n", r.GroupField, g, r.Groups[g])
		r.metricTable(b, ms, func(p PlanResult) map[string]float64 { return p.Groups[g] })
	}
}

func row(b *strings.Builder, cells []string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

func dashes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "---"
	}
	return out
}

// SVG writes a two-panel bar chart: the study's metric per arm (left) and p50 latency (right).
func (r *Report) SVG(w io.Writer) error {
	const (
		rowH, labelW, barW, gap, top = 22, 120, 260, 60, 40
	)
	n := len(r.Plans)
	width := labelW + 2*barW + gap + 80
	height := top + n*rowH + 30
	maxLat := 0.0
	for _, p := range r.Plans {
		maxLat = max(maxLat, p.P50ms)
	}
	if maxLat == 0 {
		maxLat = 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-weight="bold">%s</text>`+"\n", labelW, html.EscapeString(r.Metric))
	fmt.Fprintf(&b, `<text x="%d" y="20" font-weight="bold">p50 latency (ms)</text>`+"\n", labelW+barW+gap)
	for i, p := range r.Plans {
		y := top + i*rowH
		v := p.Metrics[r.Metric]
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW-6, y+14, html.EscapeString(p.Plan))
		nw := int(v * barW)
		color := "#4c78a8"
		if p.Plan == "maximal" {
			color = "#f58518"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", labelW, y+2, nw, rowH-6, color)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%.3f</text>`+"\n", labelW+nw+4, y+14, v)
		lw := int(p.P50ms / maxLat * (barW - 40))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#54a24b"/>`+"\n", labelW+barW+gap, y+2, lw, rowH-6)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%.1f</text>`+"\n", labelW+barW+gap+lw+4, y+14, p.P50ms)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

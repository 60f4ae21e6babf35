package eval

import (
	"fmt"
	"html"
	"io"
	"strings"
)

// Markdown writes the report as a markdown document: the command that made it, a table of
// every arm (metrics, latency, the difference with maximal and its Holm-adjusted p), and a
// reference to the plot written by SVG.
func (r *Report) Markdown(w io.Writer, command, svgName string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Plan study: %s\n\n", r.Dataset)
	fmt.Fprintf(&b, "%d judged queries. Made by:\n\n    %s\n\n", r.Queries, command)
	b.WriteString("Metrics are means over the queries (trec_eval definitions). Latency is the whole\n" +
		"recall call per query, on this machine. Delta and p compare nDCG@10 with maximal: paired\n" +
		"randomization test (10,000 trials), Holm-adjusted over the arms; * marks p_holm < 0.05.\n\n")
	sig := map[string]Significance{}
	for _, s := range r.Significance {
		sig[s.Plan] = s
	}
	b.WriteString("| plan | nDCG@10 | Recall@10 | Recall@100 | MRR@10 | p50 ms | p95 ms | delta nDCG@10 | p (Holm) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range r.Plans {
		d, pv := "", ""
		if s, ok := sig[p.Plan]; ok {
			d = fmt.Sprintf("%+.4f", s.Delta)
			pv = fmt.Sprintf("%.4f", s.PHolm)
			if s.Significant {
				pv += " *"
			}
		}
		fmt.Fprintf(&b, "| %s | %.4f | %.4f | %.4f | %.4f | %.1f | %.1f | %s | %s |\n",
			p.Plan, p.NDCG10, p.Recall10, p.Recall100, p.MRR10, p.P50ms, p.P95ms, d, pv)
	}
	if svgName != "" {
		fmt.Fprintf(&b, "\n![nDCG@10 and p50 latency per arm](%s)\n", svgName)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SVG writes a two-panel bar chart: nDCG@10 per arm (left) and p50 latency (right).
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
	fmt.Fprintf(&b, `<text x="%d" y="20" font-weight="bold">nDCG@10</text>`+"\n", labelW)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-weight="bold">p50 latency (ms)</text>`+"\n", labelW+barW+gap)
	for i, p := range r.Plans {
		y := top + i*rowH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW-6, y+14, html.EscapeString(p.Plan))
		nw := int(p.NDCG10 * barW)
		color := "#4c78a8"
		if p.Plan == "maximal" {
			color = "#f58518"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", labelW, y+2, nw, rowH-6, color)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%.3f</text>`+"\n", labelW+nw+4, y+14, p.NDCG10)
		lw := int(p.P50ms / maxLat * (barW - 40))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#54a24b"/>`+"\n", labelW+barW+gap, y+2, lw, rowH-6)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%.1f</text>`+"\n", labelW+barW+gap+lw+4, y+14, p.P50ms)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

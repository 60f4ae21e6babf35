package server

import (
	"fmt"
	"strings"

	"github.com/recall-engine/recall"
)

// PackText is a pack as a model reads it: one numbered block per item with its id, source,
// speaker and time, then the text; runs of adjacent turns stay together.
func PackText(p *recall.Pack) string {
	var b strings.Builder
	if len(p.Items) == 0 {
		b.WriteString("No evidence found in the memories this key can read.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%d items of evidence (%d of %d tokens), best first:\n", len(p.Items), p.Used, p.Budget)
	for i, it := range p.Items {
		var meta []string
		meta = append(meta, "id "+it.ExternalID)
		if it.Kind == "summary" {
			meta = append(meta, fmt.Sprintf("summary of %d memories", len(it.Covers)))
		}
		if it.SourceTitle != "" {
			meta = append(meta, "source "+it.SourceTitle)
		}
		if it.Speaker != "" {
			meta = append(meta, "speaker "+it.Speaker)
		}
		if it.OccurredStart != nil {
			meta = append(meta, "at "+it.OccurredStart.Format("2006-01-02 15:04"))
		}
		if a := p.Attachment(i); a != "" {
			meta = append(meta, a)
		}
		if it.Stale != "" {
			meta = append(meta, "NO LONGER HOLDS: "+it.Stale)
		}
		fmt.Fprintf(&b, "\n[%d] %s\n%s\n", i+1, strings.Join(meta, " · "), it.Text)
	}
	if len(p.GraphContext) > 0 {
		b.WriteString("\nRelations between the question's entities and the evidence's:\n")
		for _, t := range p.GraphContext {
			fmt.Fprintf(&b, "- %s %s %s\n", t.Subject, t.Predicate, t.Object)
		}
	}
	return b.String()
}

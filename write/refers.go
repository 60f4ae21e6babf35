package write

import (
	"strings"
	"time"

	"github.com/recall-engine/recall/when"
)

// Refers returns the span m's text refers to: the span the caller set, else the first time
// expression of m.Text read relative to when it was said (MentionedAt, else OccurredStart),
// else none. "I went to a support group yesterday", said at 13:56 on 8 May 2023, refers to
// [7 May, 8 May). A leading "Speaker: " is not read.
func Refers(m Memory) (start, end *time.Time) {
	if m.RefersStart != nil || m.RefersEnd != nil {
		return m.RefersStart, m.RefersEnd
	}
	said := m.MentionedAt
	if said == nil {
		said = m.OccurredStart
	}
	if said == nil {
		return nil, nil
	}
	text := m.Text
	if sp := strings.TrimSpace(m.Speaker); sp != "" {
		text = strings.TrimPrefix(text, sp+":")
	}
	w, ok := when.Parse(text, *said)
	if !ok {
		return nil, nil
	}
	return &w.Start, &w.End
}

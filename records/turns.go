package records

import (
	"fmt"

	"github.com/recall-engine/recall/write"
)

// turnLine is a conversation turn.
type turnLine struct {
	ID           string         `json:"id"`
	Conversation string         `json:"conversation"`
	Speaker      string         `json:"speaker"`
	Text         string         `json:"text"`
	Date         string         `json:"date"`
	Time         string         `json:"time"`
	Timestamp    string         `json:"timestamp"`
	Metadata     map[string]any `json:"metadata"`
}

// parseTurn maps a turn to an experience memory spoken by its speaker, with id
// "<conversation or file>:<line>" unless it has one, and its conversation as its source.
func parseTurn(b []byte, file string, line int, o Options) ([]Record, error) {
	var t turnLine
	if err := strict(b, &t); err != nil {
		return nil, fmt.Errorf("conversation turn: %v", err)
	}
	if t.Speaker == "" {
		return nil, fmt.Errorf(`conversation turn without "speaker"`)
	}
	m := &write.Memory{ID: t.ID, Kind: "experience", Text: t.Text, Speaker: t.Speaker, Metadata: t.Metadata}
	if m.ID == "" {
		conv := t.Conversation
		if conv == "" {
			conv = file
		}
		m.ID = fmt.Sprintf("%s:%d", conv, line)
	}
	for _, s := range []string{t.Timestamp, t.Time, t.Date} {
		if s != "" {
			at, err := ParseTime(s, o.TimeLayouts...)
			if err != nil {
				return nil, err
			}
			m.OccurredStart = &at
			break
		}
	}
	var out []Record
	if t.Conversation != "" {
		out = append(out, Record{Source: &write.Source{ID: t.Conversation, Title: t.Conversation}})
		m.Source = t.Conversation
	}
	return append(out, Record{Memory: m}), nil
}

package records

import (
	"fmt"
	"time"

	"github.com/recall-engine/recall/write"
)

// turnLine is a conversation turn.
type turnLine struct {
	ID           string         `json:"id"`
	Conversation string         `json:"conversation"`
	Session      string         `json:"session"`
	Position     int            `json:"position"`
	Speaker      string         `json:"speaker"`
	Text         string         `json:"text"`
	Date         string         `json:"date"`
	Time         string         `json:"time"`
	Timestamp    string         `json:"timestamp"`
	ExpiresAt    string         `json:"expires_at"`
	ValidFrom    string         `json:"valid_from"`
	ValidUntil   string         `json:"valid_until"`
	Supersedes   []string       `json:"supersedes"`
	Metadata     map[string]any `json:"metadata"`
}

// parseTurn maps a turn to an experience memory spoken by its speaker, with id
// "<conversation or file>:<line>" unless it has one, ordered in its source: the conversation
// ("<conversation>:<session>" with a session), or the file for a turn of neither.
func parseTurn(b []byte, file string, line int, o Options) ([]Record, error) {
	var t turnLine
	if err := strict(b, &t); err != nil {
		return nil, fmt.Errorf("conversation turn: %v", err)
	}
	if t.Speaker == "" {
		return nil, fmt.Errorf(`conversation turn without "speaker"`)
	}
	if t.Position < 0 {
		return nil, fmt.Errorf(`conversation turn: "position" %d: want a place from 1`, t.Position)
	}
	m := &write.Memory{ID: t.ID, Kind: "experience", Text: t.Text, Speaker: t.Speaker, Metadata: t.Metadata, Position: t.Position}
	conv := t.Conversation
	if conv == "" {
		conv = file
	}
	if m.ID == "" {
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
	for _, f := range []struct {
		name, value string
		to          **time.Time
	}{{"expires_at", t.ExpiresAt, &m.ExpiresAt}, {"valid_from", t.ValidFrom, &m.ValidFrom}, {"valid_until", t.ValidUntil, &m.ValidUntil}} {
		if f.value == "" {
			continue
		}
		at, err := ParseTime(f.value, o.TimeLayouts...)
		if err != nil {
			return nil, fmt.Errorf("conversation turn: %s: %v", f.name, err)
		}
		*f.to = &at
	}
	m.Supersedes = t.Supersedes
	src := &write.Source{ID: conv, Title: t.Conversation}
	if t.Session != "" {
		src.ID += ":" + t.Session
	}
	m.Source = src.ID
	return []Record{{Source: src}, {Memory: m, Ordered: true}}, nil
}

package records

import (
	"fmt"
	"strings"

	"github.com/recall-engine/recall/write"
)

// Doc is one corpus document of a BEIR dataset.
type Doc struct {
	ID       string         `json:"_id"`
	Title    string         `json:"title"`
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata"`
}

// Records maps the document to a source and a memory with its metadata, its text (the title
// when the text is blank), and, as o names them, its speaker, occurred time, validity start
// and the documents it supersedes. The source is
// its session when o names a session field and the document has one (the memory is then
// ordered in it), else the document's title when it has one.
func (d Doc) Records(o Options) ([]Record, error) {
	if d.ID == "" {
		return nil, fmt.Errorf(`BEIR record without "_id"`)
	}
	m := &write.Memory{ID: d.ID, Text: d.Text, Metadata: d.Metadata}
	if strings.TrimSpace(m.Text) == "" {
		m.Text = d.Title
	}
	if o.SpeakerField != "" {
		if v, ok := d.Metadata[o.SpeakerField].(string); ok {
			m.Speaker = v
		}
	}
	if o.TimeField != "" {
		if v, ok := d.Metadata[o.TimeField].(string); ok {
			t, err := ParseTime(v, o.TimeLayouts...)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", o.TimeField, err)
			}
			m.OccurredStart = &t
		}
	}
	if o.ValidFromField != "" {
		if v, ok := d.Metadata[o.ValidFromField].(string); ok {
			t, err := ParseTime(v, o.TimeLayouts...)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", o.ValidFromField, err)
			}
			m.ValidFrom = &t
		}
	}
	if o.SupersedesField != "" {
		switch v := d.Metadata[o.SupersedesField].(type) {
		case nil:
		case []any:
			for i, x := range v {
				id, ok := x.(string)
				if !ok {
					return nil, fmt.Errorf("%s[%d]: %v: want a document id", o.SupersedesField, i, x)
				}
				m.Supersedes = append(m.Supersedes, id)
			}
		default:
			return nil, fmt.Errorf("%s: %v: want a list of document ids", o.SupersedesField, v)
		}
	}
	var out []Record
	if o.SessionField != "" {
		if v, ok := d.Metadata[o.SessionField].(string); ok && v != "" {
			out = append(out, Record{Source: &write.Source{ID: v, OccurredAt: m.OccurredStart}})
			m.Source = v
			return append(out, Record{Memory: m, Ordered: true}), nil
		}
	}
	if d.Title != "" {
		out = append(out, Record{Source: &write.Source{ID: d.ID, Title: d.Title}})
		m.Source = d.ID
	}
	return append(out, Record{Memory: m}), nil
}

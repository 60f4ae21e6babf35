package write

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recall-engine/recall/internal/scope"
)

// Scopes returns the batch's normalized scope set, which must lie within the caller's
// (normalized) write scopes; nil means the caller's only write scope.
func Scopes(write, batch []string) ([]string, error) {
	if len(batch) == 0 {
		if len(write) != 1 {
			return nil, &Error{Item: "batch", Field: "scopes", Problem: fmt.Sprintf("the user writes %d scopes: name the batch's", len(write))}
		}
		return write, nil
	}
	s, err := scope.Normalize("batch.scopes", batch)
	if err != nil {
		return nil, &Error{Item: "batch", Field: "scopes", Problem: err.Error()}
	}
	for _, x := range s {
		if !slices.Contains(write, x) {
			return nil, &Error{Item: "batch", Field: "scopes", Problem: fmt.Sprintf("%q is not one of the user's write scopes", x)}
		}
	}
	return s, nil
}

func checkID(item, field, id string, required bool) error {
	switch {
	case id == "" && required:
		return &Error{Item: item, Field: field, Problem: "empty"}
	case len(id) > MaxIDLen:
		return &Error{Item: item, Field: field, Problem: fmt.Sprintf("%d bytes, the limit is %d", len(id), MaxIDLen)}
	case !utf8.ValidString(id) || strings.IndexByte(id, 0) >= 0:
		return &Error{Item: item, Field: field, Problem: "invalid UTF-8 or a NUL byte"}
	}
	return nil
}

func checkStr(item, field, s string) error {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return &Error{Item: item, Field: field, Problem: "invalid UTF-8 or a NUL byte"}
	}
	return nil
}

// validate checks every row before anything is written; dim is the embedder's dimension.
func validate(b Batch, dim int) error {
	seen := map[string]bool{}
	dup := func(kind, id string, i int) error {
		k := kind + "\x00" + id
		if seen[k] {
			return &Error{Item: fmt.Sprintf("%s[%d]", kind, i), Field: "id", Problem: fmt.Sprintf("%q appears twice in the batch", id)}
		}
		seen[k] = true
		return nil
	}
	for i, s := range b.Sources {
		item := fmt.Sprintf("sources[%d]", i)
		if err := checkID(item, "id", s.ID, true); err != nil {
			return err
		}
		if err := dup("sources", s.ID, i); err != nil {
			return err
		}
		for f, v := range map[string]string{"title": s.Title, "uri": s.URI} {
			if err := checkStr(item, f, v); err != nil {
				return err
			}
		}
	}
	for i, m := range b.Memories {
		if err := validateMemory(fmt.Sprintf("memories[%d]", i), m, dim); err != nil {
			return err
		}
		if err := dup("memories", m.ID, i); err != nil {
			return err
		}
	}
	for i, en := range b.Entities {
		item := fmt.Sprintf("entities[%d]", i)
		if err := checkID(item, "id", en.ID, true); err != nil {
			return err
		}
		if strings.HasPrefix(en.ID, "auto:") {
			return &Error{Item: item, Field: "id", Problem: `ids starting "auto:" are the engine's, for extracted entities`}
		}
		if err := dup("entities", en.ID, i); err != nil {
			return err
		}
		if strings.TrimSpace(en.Name) == "" || len(en.Name) > MaxNameLen || checkStr(item, "name", en.Name) != nil {
			return &Error{Item: item, Field: "name", Problem: "empty, over 512 bytes, invalid UTF-8 or a NUL byte"}
		}
		for j, a := range en.BlockedAliases {
			if strings.TrimSpace(a) == "" || len(a) > MaxNameLen || checkStr(item, "blocked_aliases", a) != nil {
				return &Error{Item: item, Field: fmt.Sprintf("blocked_aliases[%d]", j), Problem: "empty, over 512 bytes, invalid UTF-8 or a NUL byte"}
			}
		}
	}
	for i, r := range b.Relations {
		item := fmt.Sprintf("relations[%d]", i)
		if err := checkID(item, "from", r.From, true); err != nil {
			return err
		}
		if err := checkID(item, "to", r.To, true); err != nil {
			return err
		}
		if r.From == r.To {
			return &Error{Item: item, Field: "to", Problem: "a relation joins two different entities"}
		}
		if r.Weight < 0 || r.Weight > 1e9 || r.Weight != r.Weight {
			return &Error{Item: item, Field: "weight", Problem: "want a positive finite weight (0: 1)"}
		}
	}
	return nil
}

func validateMemory(item string, m Memory, dim int) error {
	if err := checkID(item, "id", m.ID, true); err != nil {
		return err
	}
	if err := checkID(item, "source", m.Source, false); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(m.Text) == "":
		return &Error{Item: item, Field: "text", Problem: "empty"}
	case len(m.Text) > MaxTextLen:
		return &Error{Item: item, Field: "text", Problem: fmt.Sprintf("%d bytes, the limit is %d", len(m.Text), MaxTextLen)}
	case m.Kind != "" && !slices.Contains(kinds, m.Kind):
		return &Error{Item: item, Field: "kind", Problem: fmt.Sprintf("%q: want one of %s", m.Kind, strings.Join(kinds, ", "))}
	case m.Embedding != nil && len(m.Embedding) != dim:
		return &Error{Item: item, Field: "embedding", Problem: fmt.Sprintf("%d dimensions, the engine's embedder has %d", len(m.Embedding), dim)}
	case m.OccurredStart != nil && m.OccurredEnd != nil && m.OccurredEnd.Before(*m.OccurredStart):
		return &Error{Item: item, Field: "occurred_end", Problem: "before occurred_start"}
	case m.Position < 0:
		return &Error{Item: item, Field: "position", Problem: fmt.Sprintf("%d: want a place from 1 (0: none)", m.Position)}
	case m.Position > 0 && m.Source == "":
		return &Error{Item: item, Field: "position", Problem: "a place needs a source to be a place in"}
	case len(m.Speaker) > MaxNameLen:
		return &Error{Item: item, Field: "speaker", Problem: fmt.Sprintf("%d bytes, the limit is %d", len(m.Speaker), MaxNameLen)}
	}
	if err := checkStr(item, "text", m.Text); err != nil {
		return err
	}
	if err := checkStr(item, "speaker", m.Speaker); err != nil {
		return err
	}
	for j, t := range m.Tags {
		if t == "" || checkStr(item, "tags", t) != nil {
			return &Error{Item: item, Field: fmt.Sprintf("tags[%d]", j), Problem: "empty, invalid UTF-8 or a NUL byte"}
		}
	}
	for j, id := range m.Entities {
		if err := checkID(item, fmt.Sprintf("entities[%d]", j), id, true); err != nil {
			return err
		}
	}
	return nil
}

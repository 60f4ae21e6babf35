package write

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recall-engine/recall/internal/scope"
)

// Scopes returns the batch's normalized scope set, which must lie within the caller's
// (normalized) write scopes; nil means the caller's only write scope.
func Scopes(write, batch []string) ([]string, error) {
	if len(batch) == 0 {
		if len(write) != 1 {
			return nil, &Error{Item: "batch", Field: "scopes", Problem: fmt.Sprintf("the user writes %d scopes: name the batch's", len(write))}
		}
		batch = write
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
	if n := len(strings.Join(s, ",")); n > MaxScopeSetBytes {
		return nil, &Error{Item: "batch", Field: "scopes", Problem: fmt.Sprintf("the scope set's names take %d bytes (joined by commas), the limit for a stored set is %d", n, MaxScopeSetBytes)}
	}
	return s, nil
}

// validate checks every row before anything is written; dim is the embedder's dimension.
func validate(b Batch, dim int) error {
	switch b.Duplicates {
	case "", DuplicatesKeep, DuplicatesSkip, DuplicatesLink:
	default:
		return &Error{Item: "batch", Field: "duplicates", Problem: fmt.Sprintf("%q: want keep, skip or link", b.Duplicates)}
	}
	switch b.DuplicateMatch {
	case "", DuplicateMatchText, DuplicateMatchWords:
	default:
		return &Error{Item: "batch", Field: "duplicate_match", Problem: fmt.Sprintf("%q: want text or words", b.DuplicateMatch)}
	}
	if b.Prune != "" {
		if len(b.Prune) < MinPruneLen {
			return &Error{Item: "batch", Field: "prune", Problem: fmt.Sprintf("%q: a prefix of %d bytes, want at least %d", b.Prune, len(b.Prune), MinPruneLen)}
		}
		if err := checkID("batch", "prune", b.Prune, true); err != nil {
			return err
		}
		for i, m := range b.Memories {
			if !strings.HasPrefix(m.ID, b.Prune) {
				return &Error{Item: fmt.Sprintf("memories[%d]", i), Field: "id", Problem: fmt.Sprintf("%q does not start with the batch's prune prefix %q", m.ID, b.Prune)}
			}
		}
	}
	seen := map[string]bool{}
	dup := func(item, field, kind, key, shown string) error {
		k := kind + "\x00" + key
		if seen[k] {
			return &Error{Item: item, Field: field, Problem: fmt.Sprintf("%s appears twice in the batch", shown)}
		}
		seen[k] = true
		return nil
	}
	for i, s := range b.Sources {
		item := fmt.Sprintf("sources[%d]", i)
		if err := validateSource(item, s); err != nil {
			return err
		}
		if err := dup(item, "id", "sources", s.ID, fmt.Sprintf("%q", s.ID)); err != nil {
			return err
		}
	}
	for i, m := range b.Memories {
		item := fmt.Sprintf("memories[%d]", i)
		if err := validateMemory(item, m, dim); err != nil {
			return err
		}
		if err := dup(item, "id", "memories", m.ID, fmt.Sprintf("%q", m.ID)); err != nil {
			return err
		}
	}
	for i, en := range b.Entities {
		item := fmt.Sprintf("entities[%d]", i)
		if err := validateEntity(item, en, b.AsExported); err != nil {
			return err
		}
		if err := dup(item, "id", "entities", en.ID, fmt.Sprintf("%q", en.ID)); err != nil {
			return err
		}
	}
	for i, r := range b.Relations {
		item := fmt.Sprintf("relations[%d]", i)
		if err := validateRelation(item, r); err != nil {
			return err
		}
		p := cmp.Or(r.Predicate, DefaultPredicate)
		key := strings.Join([]string{r.From, r.To, p, r.Memory}, "\x00")
		if err := dup(item, "predicate", "relations", key, fmt.Sprintf("the relation %q -%s-> %q (memory %q)", r.From, p, r.To, r.Memory)); err != nil {
			return err
		}
	}
	return nil
}

func validateSource(item string, s Source) error {
	if err := checkID(item, "id", s.ID, true); err != nil {
		return err
	}
	if err := checkText(item, "title", s.Title, MaxTitleLen, false); err != nil {
		return err
	}
	if err := checkText(item, "uri", s.URI, MaxURILen, false); err != nil {
		return err
	}
	if err := checkTime(item, "occurred_at", s.OccurredAt); err != nil {
		return err
	}
	return checkMeta(item, s.Metadata)
}

// validateEntity checks a given entity; only a restored export (asExported) may write the
// engine's "auto:" ids.
func validateEntity(item string, en Entity, asExported bool) error {
	if err := checkID(item, "id", en.ID, true); err != nil {
		return err
	}
	if strings.HasPrefix(en.ID, "auto:") && !asExported {
		return &Error{Item: item, Field: "id", Problem: `ids starting "auto:" are the engine's, for extracted entities`}
	}
	if err := checkText(item, "name", en.Name, MaxNameLen, true); err != nil {
		return err
	}
	if err := checkText(item, "kind", en.Kind, MaxKindLen, false); err != nil {
		return err
	}
	for j, a := range en.Aliases {
		if err := checkText(item, fmt.Sprintf("aliases[%d]", j), a, MaxNameLen, true); err != nil {
			return err
		}
	}
	for j, a := range en.BlockedAliases {
		if err := checkText(item, fmt.Sprintf("blocked_aliases[%d]", j), a, MaxNameLen, true); err != nil {
			return err
		}
	}
	return checkMeta(item, en.Metadata)
}

func validateRelation(item string, r Relation) error {
	if err := checkID(item, "from", r.From, true); err != nil {
		return err
	}
	if err := checkID(item, "to", r.To, true); err != nil {
		return err
	}
	if err := checkID(item, "memory", r.Memory, false); err != nil {
		return err
	}
	if r.From == r.To {
		return &Error{Item: item, Field: "to", Problem: "a relation joins two different entities"}
	}
	if r.Weight < 0 || r.Weight > 1e9 || r.Weight != r.Weight {
		return &Error{Item: item, Field: "weight", Problem: "want a positive finite weight up to 1e9 (0: 1)"}
	}
	return checkText(item, "predicate", r.Predicate, MaxPredicateLen, false)
}

func validateMemory(item string, m Memory, dim int) error {
	if err := checkID(item, "id", m.ID, true); err != nil {
		return err
	}
	if err := checkID(item, "source", m.Source, false); err != nil {
		return err
	}
	if err := checkText(item, "text", m.Text, MaxTextLen, true); err != nil {
		return err
	}
	switch {
	case m.Kind != "" && !slices.Contains(kinds, m.Kind):
		return &Error{Item: item, Field: "kind", Problem: fmt.Sprintf("%q: want one of %s", m.Kind, strings.Join(kinds, ", "))}
	case m.Embedding != nil && len(m.Embedding) != dim:
		return &Error{Item: item, Field: "embedding", Problem: fmt.Sprintf("%d dimensions, the engine's embedder has %d", len(m.Embedding), dim)}
	case m.OccurredStart != nil && m.OccurredEnd != nil && m.OccurredEnd.Before(*m.OccurredStart):
		return &Error{Item: item, Field: "occurred_end", Problem: "before occurred_start"}
	case (m.RefersStart == nil) != (m.RefersEnd == nil):
		return &Error{Item: item, Field: "refers_end", Problem: "refers_start and refers_end are set together or not at all"}
	case m.RefersStart != nil && !m.RefersEnd.After(*m.RefersStart):
		return &Error{Item: item, Field: "refers_end", Problem: "not after refers_start"}
	case m.ValidFrom != nil && m.ValidUntil != nil && !m.ValidUntil.After(*m.ValidFrom):
		return &Error{Item: item, Field: "valid_until", Problem: "not after valid_from"}
	case len(m.Supersedes) > MaxCovers:
		return &Error{Item: item, Field: "supersedes", Problem: fmt.Sprintf("%d memories, the limit is %d", len(m.Supersedes), MaxCovers)}
	case m.SupersedesAt != nil && len(m.Supersedes) == 0:
		return &Error{Item: item, Field: "supersedes_at", Problem: "set without supersedes: name the memories it replaces"}
	case m.DuplicateOf != "" && m.DuplicateOf == m.ID:
		return &Error{Item: item, Field: "duplicate_of", Problem: "a memory cannot be a duplicate of itself"}
	case m.Position < 0:
		return &Error{Item: item, Field: "position", Problem: fmt.Sprintf("%d: want a place from 1 (0: none)", m.Position)}
	case m.Position > 0 && m.Source == "":
		return &Error{Item: item, Field: "position", Problem: "a place needs a source to be a place in"}
	}
	if err := checkEmbedding(item, "embedding", m.Embedding); err != nil {
		return err
	}
	for _, t := range []struct {
		field string
		at    *time.Time
	}{{"occurred_start", m.OccurredStart}, {"occurred_end", m.OccurredEnd}, {"mentioned_at", m.MentionedAt},
		{"refers_start", m.RefersStart}, {"refers_end", m.RefersEnd}, {"expires_at", m.ExpiresAt},
		{"valid_from", m.ValidFrom}, {"valid_until", m.ValidUntil}, {"supersedes_at", m.SupersedesAt}} {
		if err := checkTime(item, t.field, t.at); err != nil {
			return err
		}
	}
	if err := checkText(item, "speaker", m.Speaker, MaxSpeakerLen, false); err != nil {
		return err
	}
	if err := checkID(item, "duplicate_of", m.DuplicateOf, false); err != nil {
		return err
	}
	for j, t := range m.Tags {
		if err := checkText(item, fmt.Sprintf("tags[%d]", j), t, MaxTagLen, true); err != nil {
			return err
		}
	}
	for j, id := range m.Entities {
		if err := checkID(item, fmt.Sprintf("entities[%d]", j), id, true); err != nil {
			return err
		}
	}
	if err := validateCovers(item, m); err != nil {
		return err
	}
	for j, id := range m.Supersedes {
		field := fmt.Sprintf("supersedes[%d]", j)
		if err := checkID(item, field, id, true); err != nil {
			return err
		}
		if id == m.ID {
			return &Error{Item: item, Field: field, Problem: "a memory cannot supersede itself"}
		}
	}
	return checkMeta(item, m.Metadata)
}

// validateCovers checks a summary's covered memory ids: only a summary covers, at most
// MaxCovers distinct ids, never itself.
func validateCovers(item string, m Memory) error {
	if len(m.Covers) == 0 {
		return nil
	}
	switch {
	case m.Kind != "summary":
		return &Error{Item: item, Field: "covers", Problem: fmt.Sprintf("only a summary covers memories, this memory's kind is %q", cmp.Or(m.Kind, "world"))}
	case len(m.Covers) > MaxCovers:
		return &Error{Item: item, Field: "covers", Problem: fmt.Sprintf("%d memories, the limit is %d", len(m.Covers), MaxCovers)}
	}
	seen := make(map[string]bool, len(m.Covers))
	for j, id := range m.Covers {
		field := fmt.Sprintf("covers[%d]", j)
		if err := checkID(item, field, id, true); err != nil {
			return err
		}
		switch {
		case id == m.ID:
			return &Error{Item: item, Field: field, Problem: "a summary cannot cover itself"}
		case seen[id]:
			return &Error{Item: item, Field: field, Problem: fmt.Sprintf("%q appears twice", id)}
		}
		seen[id] = true
	}
	return nil
}

package write

import (
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"
)

// The policies of Batch.Duplicates.
const (
	DuplicatesKeep = "keep"
	DuplicatesSkip = "skip"
	DuplicatesLink = "link"
)

// The rules of Batch.DuplicateMatch.
const (
	DuplicateMatchText  = "text"
	DuplicateMatchWords = "words"
)

// duplicate is a batch memory that restates another: a stored memory (stored > 0) or an
// earlier memory of the batch (index earlier).
type duplicate struct {
	stored  int64
	earlier int
}

// findDuplicates returns, by batch index, the memories of b that restate a stored memory of
// the scope set or an earlier one of the batch (sql/write/duplicates.sql gives each
// placeless memory's key and the stored memory it restates). A memory stored already under
// its id is rewritten, never a duplicate. Nothing without a policy.
func (t *txn) findDuplicates(b Batch) (map[int]duplicate, error) {
	if b.Duplicates == "" || b.Duplicates == DuplicatesKeep {
		return nil, nil
	}
	var rows []map[string]any
	for i, m := range b.Memories {
		if m.Position == 0 {
			rows = append(rows, map[string]any{"i": i, "id": m.ID, "kind": nilIfEmpty(m.Kind), "speaker": m.Speaker, "text": m.Text})
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	match := b.DuplicateMatch
	if match == "" {
		match = DuplicateMatchText
	}
	r, err := t.tx.Query(t.ctx, statementText("duplicates"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{rows}, "match": match})
	if err != nil {
		return nil, err
	}
	type key struct{ kind, speaker, text string }
	first := map[key]int{}
	out := map[int]duplicate{}
	var i int
	var k *string
	var stored *int64
	var existing bool
	_, err = pgx.ForEachRow(r, []any{&i, &k, &existing, &stored}, func() error {
		m := b.Memories[i]
		if existing || k == nil {
			return nil
		}
		kind := m.Kind
		if kind == "" {
			kind = "world"
		}
		kk := key{kind, m.Speaker, *k}
		switch j, ok := first[kk]; {
		case stored != nil:
			out[i] = duplicate{stored: *stored}
		case ok && b.Memories[j].ID != m.ID:
			out[i] = duplicate{earlier: j}
		case !ok:
			first[kk] = i
		}
		return nil
	})
	return out, err
}

// linkDuplicates marks the batch's linked duplicates with the memory each restates, and the
// memories that name the one they restate (Memory.DuplicateOf, in the batch or stored), once
// every memory of the batch has its id.
func (t *txn) linkDuplicates(b Batch, dups map[int]duplicate) error {
	var rows []map[string]any
	for i, d := range dups {
		if b.Duplicates != DuplicatesLink {
			continue
		}
		of := d.stored
		if of == 0 {
			of = t.memories[b.Memories[d.earlier].ID]
		}
		rows = append(rows, map[string]any{"id": t.memories[b.Memories[i].ID], "of": of})
	}
	refs := map[string]string{}
	for i, m := range b.Memories {
		if _, ok := t.memories[m.DuplicateOf]; m.DuplicateOf != "" && !ok {
			refs[m.DuplicateOf] = fmt.Sprintf("memories[%d].duplicate_of", i)
		}
	}
	stored, err := t.stored("memories", refs)
	if err != nil {
		return err
	}
	for i, m := range b.Memories {
		if _, skipped := dups[i]; m.DuplicateOf == "" || (skipped && b.Duplicates == DuplicatesSkip) {
			continue
		}
		of, ok := t.memories[m.DuplicateOf]
		if !ok {
			of = stored[m.DuplicateOf]
		}
		rows = append(rows, map[string]any{"id": t.memories[m.ID], "of": of})
	}
	if len(rows) == 0 {
		return nil
	}
	_, err = t.tx.Exec(t.ctx, statementText("duplicate_links"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{rows}})
	return err
}

// countRestatements counts each skipped duplicate on the memory it restates, with its
// source (sql/write/restatements.sql), once every memory of the batch has its id.
func (t *txn) countRestatements(b Batch, dups map[int]duplicate) error {
	rows := make([]map[string]any, 0, len(dups))
	for _, i := range slices.Sorted(maps.Keys(dups)) {
		rows = append(rows, map[string]any{"i": i, "id": t.memories[b.Memories[i].ID], "source": nilIfEmpty(b.Memories[i].Source)})
	}
	if len(rows) == 0 {
		return nil
	}
	_, err := t.tx.Exec(t.ctx, statementText("restatements"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{rows}})
	return err
}

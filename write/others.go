package write

import (
	"cmp"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The steps of a batch by which a memory names others of its scope set: a summary the
// memories it covers, a memory those it supersedes.

// writeSupersessions marks the memories each of the batch's memories supersedes (of the
// batch's scope set, written by it or stored) as superseded by it, from its ValidFrom, else
// its OccurredStart, else the write's time (or from its SupersedesAt).
func (t *txn) writeSupersessions(b Batch) error {
	refs := map[string]string{}
	var rows []map[string]any
	for i, m := range b.Memories {
		for j, id := range m.Supersedes {
			if _, ok := t.memories[id]; !ok {
				refs[id] = fmt.Sprintf("memories[%d].supersedes[%d]", i, j)
			}
		}
	}
	stored, err := t.stored("memories", refs)
	if err != nil {
		return err
	}
	for _, m := range b.Memories {
		at := cmp.Or(m.SupersedesAt, m.ValidFrom, m.OccurredStart)
		for _, id := range m.Supersedes {
			old, ok := t.memories[id]
			if !ok {
				old = stored[id]
			}
			rows = append(rows, map[string]any{"old": old, "by": t.memories[m.ID], "at": at})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	tag, err := t.tx.Exec(t.ctx, statementText("supersede"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{rows}, "note": "", "now": t.now})
	if err != nil {
		return err
	}
	t.res.Superseded = int(tag.RowsAffected())
	return nil
}

// writeCoverage replaces the coverage of the batch's memories (a summary's covered memories;
// a memory that is no longer a summary loses its coverage). Covered memories are of the
// batch's scope set, written by it or stored.
func (t *txn) writeCoverage(b Batch) error {
	if len(b.Memories) == 0 {
		return nil
	}
	refs := map[string]string{}
	for i, m := range b.Memories {
		for j, id := range m.Covers {
			if _, ok := t.memories[id]; !ok {
				refs[id] = fmt.Sprintf("memories[%d].covers[%d]", i, j)
			}
		}
	}
	stored, err := t.stored("memories", refs)
	if err != nil {
		return err
	}
	ids := make([]int64, 0, len(b.Memories))
	var rows []map[string]any
	for _, m := range b.Memories {
		sid := t.memories[m.ID]
		ids = append(ids, sid)
		for _, c := range m.Covers {
			mid, ok := t.memories[c]
			if !ok {
				mid = stored[c]
			}
			rows = append(rows, map[string]any{"summary": sid, "memory": mid})
		}
	}
	if _, err := t.tx.Exec(t.ctx, statementText("coverage_clear"), pgx.NamedArgs{"ids": ids}); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	tag, err := t.tx.Exec(t.ctx, statementText("coverage"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{rows}})
	if err != nil {
		return err
	}
	t.res.Covered = int(tag.RowsAffected())
	return nil
}

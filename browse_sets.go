package recall

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// browseRow is a MemoryRow with its internal id, the last key of Browse's order.
type browseRow struct {
	InternalID int64 `db:"internal_id"`
	MemoryRow
}

// sourceRow is a SourceRow with its internal id, the last key of the sources' order.
type sourceRow struct {
	InternalID int64 `db:"internal_id"`
	SourceRow
}

// browseSets runs each group's browse and sources reads (statement.RouteReadSets: one group on
// one server, one per scope set on a Citus cluster) in one round trip, and returns their rows
// together, and how many of the merged rows come before the page: one group reads its page
// (q.Limit + 1 rows after q.Offset, none before it); several each read their first q.Offset +
// q.Limit + 1, which pageOf merges and cuts.
func browseSets(ctx context.Context, tx pgx.Tx, groups [][]string, q BrowseQuery) ([]browseRow, []sourceRow, int, error) {
	limit, offset, before := q.Limit, q.Offset, 0
	if len(groups) > 1 {
		limit, offset, before = q.Offset+q.Limit, 0, q.Offset
	}
	if len(groups) == 0 {
		return nil, nil, 0, nil
	}
	page := pgx.StrictNamedArgs{"scope": q.Scope, "source": q.Source, "kind": q.Kind, "tag": q.Tag, "text": q.Text,
		"from": q.From, "to": q.To, "limit": limit, "offset": offset}
	srcs := pgx.StrictNamedArgs{"scope": q.Scope, "limit": BrowseSourcesLimit}
	batch := &pgx.Batch{}
	for _, g := range groups {
		batch.Queue(g[0], page)
		batch.Queue(g[1], srcs)
	}
	var memories []browseRow
	var sources []sourceRow
	err := inBatch(ctx, tx, batch, func(br pgx.BatchResults) error {
		for range groups {
			rows, err := br.Query()
			if err != nil {
				return err
			}
			ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[browseRow])
			if err != nil {
				return err
			}
			if rows, err = br.Query(); err != nil {
				return err
			}
			ss, err := pgx.CollectRows(rows, pgx.RowToStructByName[sourceRow])
			if err != nil {
				return err
			}
			memories, sources = append(memories, ms...), append(sources, ss...)
		}
		return nil
	})
	return memories, sources, before, err
}

// inBatch sends batch in one round trip, reads its results with read, and closes them: the
// first error of the two.
func inBatch(ctx context.Context, tx pgx.Tx, batch *pgx.Batch, read func(pgx.BatchResults) error) error {
	br := tx.SendBatch(ctx, batch)
	err := read(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// pageOf cuts Browse's page (q.Limit rows after the first before, and whether more follow)
// from the groups' rows, merged in the order sql/read/browse.sql
// gives one server's: with a source, by place (memories without one last); then newest first
// by occurred_start (memories without a time first); then internal id, highest first. The
// sources merge newest first by occurred_at (without one last), then internal id.
func pageOf(memories []browseRow, sources []sourceRow, before int, q BrowseQuery) ([]MemoryRow, bool, []SourceRow) {
	slices.SortStableFunc(memories, func(a, b browseRow) int {
		if q.Source != "" {
			if c := nullsLast(a.Position, b.Position, cmp.Compare[int]); c != 0 {
				return c
			}
		}
		// Descending with nulls first is ascending with nulls last, a and b swapped.
		if c := nullsLast(b.OccurredStart, a.OccurredStart, compareTime); c != 0 {
			return c
		}
		return cmp.Compare(b.InternalID, a.InternalID)
	})
	slices.SortStableFunc(sources, func(a, b sourceRow) int {
		// Descending with nulls last: nil after every value, values compared the other way.
		if c := nullsLast(a.OccurredAt, b.OccurredAt, func(x, y time.Time) int { return y.Compare(x) }); c != 0 {
			return c
		}
		return cmp.Compare(b.InternalID, a.InternalID)
	})
	out := []MemoryRow{}
	for _, m := range memories[min(before, len(memories)):] {
		out = append(out, m.MemoryRow)
	}
	more := len(out) > q.Limit
	if more {
		out = out[:q.Limit]
	}
	srcs := make([]SourceRow, 0, min(len(sources), BrowseSourcesLimit))
	for _, s := range sources[:min(len(sources), BrowseSourcesLimit)] {
		srcs = append(srcs, s.SourceRow)
	}
	return out, more, srcs
}

// nullsLast compares a and b ascending with nil after every value.
func nullsLast[T any](a, b *T, compare func(T, T) int) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return compare(*a, *b)
}

func compareTime(a, b time.Time) int { return a.Compare(b) }

// detailRow is a row of sql/read/memory_detail.sql.
type detailRow struct {
	InternalID     int64  `db:"internal_id"`
	InternalSource *int64 `db:"internal_source"`
	MemoryRow
	OccurredEnd  *time.Time     `db:"occurred_end"`
	SupersededAt *time.Time     `db:"superseded_at"`
	Metadata     map[string]any `db:"metadata"`
	CreatedAt    time.Time      `db:"created_at"`
}

// foundDetail is a memory Engine.Memory found, with its group's reads (detail, neighbours,
// entities), which read its scope set.
type foundDetail struct {
	detail detailRow
	reads  []string
}

// memoryDetails runs each group's detail read of external id id in one round trip and returns
// what they found, in group order.
func memoryDetails(ctx context.Context, tx pgx.Tx, groups [][]string, id, scopeName string) ([]foundDetail, error) {
	if len(groups) == 0 {
		return nil, nil
	}
	batch := &pgx.Batch{}
	for _, g := range groups {
		batch.Queue(g[0], pgx.StrictNamedArgs{"id": id, "scope": scopeName})
	}
	var out []foundDetail
	err := inBatch(ctx, tx, batch, func(br pgx.BatchResults) error {
		for _, g := range groups {
			rows, err := br.Query()
			if err != nil {
				return err
			}
			details, err := pgx.CollectRows(rows, pgx.RowToStructByName[detailRow])
			if err != nil {
				return err
			}
			for _, d := range details {
				out = append(out, foundDetail{detail: d, reads: g})
			}
		}
		return nil
	})
	return out, err
}

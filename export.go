package recall

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"

	"github.com/recall-engine/recall/internal/dberr"
	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/internal/telemetry"
	"github.com/recall-engine/recall/records"
	sqltext "github.com/recall-engine/recall/sql"
)

// ExportOptions says what Engine.Export writes.
type ExportOptions struct {
	// Scopes is the scope set to export: exactly that set's rows (a set that shares a scope
	// with it is another set). The user must read each of its scopes. Nil: the user's only
	// write scope, else its only read scope.
	Scopes []string
	// Embeddings writes each memory's embedding; without them a restore embeds the texts
	// again with its own embedder.
	Embeddings bool
}

// ExportSummary is what an export wrote: its counts (as its end record gives them), the
// scope set and the snapshot's time, and the memories whose supersession times it could not
// keep apart (MergedSupersessions).
type ExportSummary struct {
	records.ExportEnd
	Scopes []string  `json:"scopes"`
	At     time.Time `json:"at"`
	// MergedSupersessions are the memories that superseded others at different times (two
	// supersede calls with different times): a memory record carries one time for all it
	// supersedes, so the export writes the latest, and names them here.
	MergedSupersessions []string `json:"merged_supersessions,omitempty"`
}

// Export writes scope set opts.Scopes as native records to emit, read as the user under row
// security in one read-only snapshot: an export header, the sources, the entities (extracted
// ones with their "auto:" ids), the memories (each after the memories it names: those it
// supersedes, covers or duplicates) with their mentions, times, validity, expiry,
// supersession, duplicate marks and metadata, the relations (co-mentions included), and an
// end record with the counts. `recall ingest` (records.Load) reads the file back into the
// same rows: derived rows (postings, statistics, windows, aliases, relation validity) are
// derived again; access counts are not exported. An error from emit stops the export.
func (e *Engine) Export(ctx context.Context, user User, opts ExportOptions, emit func(records.Record) error) (_ ExportSummary, err error) {
	ctx, span := telemetry.Start(ctx, "recall.export", telemetry.MemoryOp(telemetry.OpSearchMemory))
	defer func() { telemetry.End(span, err) }()
	who, err := user.check()
	if err != nil {
		return ExportSummary{}, err
	}
	sc, err := exportScopes(who, opts.Scopes)
	if err != nil {
		return ExportSummary{}, err
	}
	sum := ExportSummary{Scopes: sc, At: e.cfg.Now()}
	x := exporter{emit: emit, sum: &sum, embeddings: opts.Embeddings}
	err = pgx.BeginTxFunc(ctx, e.cfg.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, who.read, who.write); err != nil {
			return err
		}
		x.tx, x.scopes = tx, sc
		return x.run(ctx)
	})
	if err != nil {
		return sum, dberr.Interpret(ctx, "recall: export", err)
	}
	span.SetAttributes(telemetry.MemoryRecords(sum.Memories), attribute.Int("recall.export.relations", sum.Relations))
	return sum, nil
}

// exportScopes is the set an export reads: opts' (each scope one the user reads), else the
// user's only write scope, else its only read scope.
func exportScopes(who caller, want []string) ([]string, error) {
	if len(want) == 0 {
		switch {
		case len(who.write) == 1:
			return who.write, nil
		case len(who.read) == 1:
			return who.read, nil
		}
		return nil, &InputError{Field: "scopes", Problem: fmt.Sprintf("the user reads %d scopes: name the scope set to export", len(who.read))}
	}
	sc, err := scope.Normalize("scopes", want)
	if err != nil {
		return nil, scopeError(err)
	}
	for _, s := range sc {
		if !contains(who.read, s) {
			return nil, &InputError{Field: "scopes", Problem: fmt.Sprintf("%q is not one of the user's read scopes", s)}
		}
	}
	return sc, nil
}

// exporter reads one scope set in one transaction and hands its records on in order.
type exporter struct {
	tx         pgx.Tx
	scopes     []string
	emit       func(records.Record) error
	sum        *ExportSummary
	embeddings bool
}

func (x *exporter) run(ctx context.Context) error {
	h := records.ExportHeader{Version: records.ExportVersion, Scopes: x.scopes, At: x.sum.At, Embeddings: x.embeddings}
	if err := x.emit(records.Record{Header: &h}); err != nil {
		return err
	}
	args := pgx.NamedArgs{"scopes": x.scopes}
	if err := each(ctx, x.tx, sqltext.ExportSources, args, func(s *Source) error {
		x.sum.Sources++
		return x.emit(records.Record{Source: s})
	}); err != nil {
		return err
	}
	if err := each(ctx, x.tx, sqltext.ExportEntities, args, func(en *Entity) error {
		x.sum.Entities++
		return x.emit(records.Record{Entity: en})
	}); err != nil {
		return err
	}
	if err := x.memories(ctx); err != nil {
		return err
	}
	if err := each(ctx, x.tx, sqltext.ExportRelations, args, func(r *Relation) error {
		x.sum.Relations++
		return x.emit(records.Record{Relation: r})
	}); err != nil {
		return err
	}
	end := x.sum.ExportEnd
	return x.emit(records.Record{End: &end})
}

// each runs query and hands fn each row as a new T, its fields scanned in order.
func each[T any](ctx context.Context, tx pgx.Tx, query string, args pgx.NamedArgs, fn func(*T) error) error {
	rows, err := tx.Query(ctx, query, args)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		v, err := pgx.RowToAddrOfStructByPos[T](rows)
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// exportMemory is a row of sql/read/export_memories.sql.
type exportMemory struct {
	ID            int64          `db:"id"`
	ExternalID    string         `db:"external_id"`
	Source        *string        `db:"source"`
	Kind          string         `db:"kind"`
	Text          string         `db:"text"`
	Embedding     []float32      `db:"embedding"`
	OccurredStart *time.Time     `db:"occurred_start"`
	OccurredEnd   *time.Time     `db:"occurred_end"`
	MentionedAt   *time.Time     `db:"mentioned_at"`
	RefersStart   *time.Time     `db:"refers_start"`
	RefersEnd     *time.Time     `db:"refers_end"`
	ExpiresAt     *time.Time     `db:"expires_at"`
	ValidFrom     *time.Time     `db:"valid_from"`
	ValidUntil    *time.Time     `db:"valid_until"`
	Tags          []string       `db:"tags"`
	Metadata      map[string]any `db:"metadata"`
	Speaker       string         `db:"speaker"`
	Position      int            `db:"position"`
	Entities      []string       `db:"entities"`
	Covers        []string       `db:"covers"`
	Covered       []int64        `db:"covered"`
	Supersedes    []string       `db:"supersedes"`
	Superseded    []int64        `db:"superseded"`
	SupersededAt  []time.Time    `db:"superseded_at"`
	DuplicateOf   *string        `db:"duplicate_of"`
	DuplicateID   *int64         `db:"duplicate_id"`
}

// memories hands on the scope set's memories in the order they were written, each after the
// memories it names (a memory waits for its referents; a cycle, which a batch can write,
// goes out at the end in id order).
func (x *exporter) memories(ctx context.Context) error {
	rows, err := x.tx.Query(ctx, sqltext.ExportMemories, pgx.NamedArgs{"scopes": x.scopes, "embeddings": x.embeddings})
	if err != nil {
		return err
	}
	defer rows.Close()
	done := map[int64]bool{}
	waiting := map[int64][]*waiter{} // a referent not out yet -> the memories waiting for it
	var out func(m *exportMemory) error
	out = func(m *exportMemory) error {
		done[m.ID] = true
		if err := x.emit(records.Record{Memory: x.memory(m)}); err != nil {
			return err
		}
		x.sum.Memories++
		ws := waiting[m.ID]
		delete(waiting, m.ID)
		for _, w := range ws {
			if w.missing--; w.missing == 0 {
				if err := out(w.m); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for rows.Next() {
		m, err := pgx.RowToAddrOfStructByNameLax[exportMemory](rows)
		if err != nil {
			return err
		}
		refs := slices.Concat(m.Covered, m.Superseded)
		if m.DuplicateID != nil {
			refs = append(refs, *m.DuplicateID)
		}
		w := &waiter{m: m}
		for _, r := range slices.Compact(slices.Sorted(slices.Values(refs))) {
			if !done[r] && r != m.ID {
				w.missing++
				waiting[r] = append(waiting[r], w)
			}
		}
		if w.missing == 0 {
			if err := out(m); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// What still waits is in a cycle of references: out in id order.
	var left []*exportMemory
	for _, ws := range waiting {
		for _, w := range ws {
			if !done[w.m.ID] {
				left = append(left, w.m)
			}
		}
	}
	slices.SortFunc(left, func(a, b *exportMemory) int { return cmp.Compare(a.ID, b.ID) })
	for _, m := range slices.CompactFunc(left, func(a, b *exportMemory) bool { return a.ID == b.ID }) {
		if !done[m.ID] {
			done[m.ID] = true
			if err := x.emit(records.Record{Memory: x.memory(m)}); err != nil {
				return err
			}
			x.sum.Memories++
		}
	}
	return nil
}

// waiter is a memory waiting for the memories it names to go out first.
type waiter struct {
	m       *exportMemory
	missing int
}

// memory maps a row to the memory record that writes it again: a supersession time only
// when it is not the one the writer would take (valid_from, else occurred_start).
func (x *exporter) memory(m *exportMemory) *Memory {
	out := &Memory{ID: m.ExternalID, Kind: m.Kind, Text: m.Text, Embedding: m.Embedding,
		OccurredStart: m.OccurredStart, OccurredEnd: m.OccurredEnd, MentionedAt: m.MentionedAt,
		RefersStart: m.RefersStart, RefersEnd: m.RefersEnd, ExpiresAt: m.ExpiresAt, ValidFrom: m.ValidFrom, ValidUntil: m.ValidUntil,
		Supersedes: m.Supersedes, Tags: m.Tags, Metadata: m.Metadata, Speaker: m.Speaker, Position: m.Position,
		Entities: m.Entities, Covers: m.Covers}
	if m.Source != nil {
		out.Source = *m.Source
	}
	if m.DuplicateOf != nil {
		out.DuplicateOf = *m.DuplicateOf
	}
	if len(out.Tags) == 0 {
		out.Tags = nil
	}
	if len(out.Metadata) == 0 {
		out.Metadata = nil
	}
	if len(m.SupersededAt) > 0 {
		at := slices.MaxFunc(m.SupersededAt, func(a, b time.Time) int { return a.Compare(b) })
		if slices.ContainsFunc(m.SupersededAt, func(t time.Time) bool { return !t.Equal(at) }) {
			x.sum.MergedSupersessions = append(x.sum.MergedSupersessions, m.ExternalID)
		}
		if def := cmp.Or(m.ValidFrom, m.OccurredStart); def == nil || !def.Equal(at) {
			out.SupersedesAt = &at
		}
	}
	return out
}

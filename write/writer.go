package write

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/dberr"
	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/sql"
)

// Writer writes batches through a pool that connects as the runtime role, so every row is
// written under row security as the caller.
type Writer struct {
	Pool     *pgxpool.Pool
	Embedder embed.Embedder
	// Functional are the predicates that hold one value at a time for a subject (lives_in,
	// works_at): a relation of one, written with an evidence memory, supersedes the evidence
	// of the subject's relations to other objects (sql/write/functional.sql).
	Functional []string
	// indexed: this Writer saw the vector index of its embedder's dimension in place, so a
	// write need not ask for it again.
	indexed atomic.Bool
}

func statementText(name string) string {
	b, err := sqltext.Write.ReadFile("write/" + name + ".sql")
	if err != nil {
		panic("recall: missing write statement " + name) // embedded at build time
	}
	return string(b)
}

// settle runs the lexical rebuild a committed transaction owes (on Citus: scope.Flush). Its
// failure leaves the transaction's rows stored and noted, which the next flush rebuilds;
// the error says so.
func (w *Writer) settle(ctx context.Context, owed bool, op string) error {
	if !owed {
		return nil
	}
	if err := scope.Flush(ctx, w.Pool); err != nil {
		return dberr.Interpret(ctx, op+": stored, but its lexical data waits for the next write's flush", err)
	}
	return nil
}

// EnsureVectorIndex creates the vector index of the embedder's dimension when it is missing
// (after a load with Batch.DeferVectorIndex). It blocks writes to memories while it builds.
func (w *Writer) EnsureVectorIndex(ctx context.Context) error {
	err := pgx.BeginFunc(ctx, w.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, statementText("build_memory")); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, statementText("ensure_vector_index"), pgx.StrictNamedArgs{"dim": w.Embedder.Dim()})
		return err
	})
	if err != nil {
		return fmt.Errorf("recall: vector index: %w", err)
	}
	w.indexed.Store(true)
	return nil
}

// txn is one batch's transaction: the rows it wrote so far, by external id.
type txn struct {
	ctx    context.Context
	tx     pgx.Tx
	scopes []string
	pre    *Prepared // the batch's memories' embeddings and spans
	res    *Result

	sources, memories, entities map[string]int64
	functional                  []string  // Writer.Functional
	now                         time.Time // the write's time: a supersession's default start
}

type idRow struct {
	ExternalID string
	ID         int64
}

func (t *txn) rows(sql string, args pgx.NamedArgs) (map[string]int64, error) {
	rows, err := t.tx.Query(t.ctx, sql, args)
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[idRow])
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(got))
	for _, r := range got {
		out[r.ExternalID] = r.ID
	}
	return out, nil
}

// jsonRows is a statement argument sent as JSON text. validate refuses what JSON cannot
// encode before anything is written; should a value slip past it, the statement fails
// with this error (and the batch rolls back) instead of the caller's process panicking.
type jsonRows struct{ v any }

// Value implements driver.Valuer, which pgx calls to encode the argument.
func (j jsonRows) Value() (driver.Value, error) {
	b, err := json.Marshal(j.v)
	if err != nil {
		return nil, fmt.Errorf("recall: write: encoding rows as JSON: %w", err)
	}
	return string(b), nil
}

// stored returns the ids of stored rows of table by external id (want maps each to where the
// batch names it, "memories[2].source"), failing on any missing one.
func (t *txn) stored(table string, want map[string]string) (map[string]int64, error) {
	if len(want) == 0 {
		return map[string]int64{}, nil
	}
	ext := make([]string, 0, len(want))
	for id := range want {
		ext = append(ext, id)
	}
	slices.Sort(ext)
	got, err := t.rows(statementText("ids"), pgx.NamedArgs{"table": table, "scopes": t.scopes, "ids": ext})
	if err != nil {
		return nil, err
	}
	for _, id := range ext {
		if _, ok := got[id]; !ok {
			item, field, _ := strings.Cut(want[id], ".")
			singular := map[string]string{"sources": "source", "entities": "entity", "memories": "memory"}[table]
			return nil, &Error{Item: item, Field: field, Problem: fmt.Sprintf("no %s %q in scopes %v (in the batch or stored)", singular, id, t.scopes)}
		}
	}
	return got, nil
}

// write runs the batch's steps in order; each reads what the earlier ones wrote.
func (t *txn) write(b Batch) error {
	for _, step := range []func(Batch) error{t.writeSources, t.writeMemories, t.writeCoverage, t.writeSupersessions, t.writeEntities, t.writeLinks} {
		if err := step(b); err != nil {
			return err
		}
	}
	if b.Prune != "" {
		keep := make([]string, len(b.Memories))
		for i, m := range b.Memories {
			keep[i] = m.ID
		}
		tag, err := t.tx.Exec(t.ctx, statementText("prune"), pgx.NamedArgs{"scopes": t.scopes, "prefix": b.Prune, "keep": keep})
		if err != nil {
			return err
		}
		t.res.Pruned = int(tag.RowsAffected())
	}
	if t.res.Updated > 0 || t.res.Pruned > 0 {
		if _, err := t.tx.Exec(t.ctx, statementText("orphans"), pgx.NamedArgs{"scopes": t.scopes}); err != nil {
			return err
		}
	}
	return nil
}

// writeSources upserts the batch's sources and checks that the stored sources its memories
// name exist; t.sources then holds the id of every source the batch names.
func (t *txn) writeSources(b Batch) error {
	t.sources = map[string]int64{}
	if len(b.Sources) > 0 {
		rows := make([]map[string]any, len(b.Sources))
		for i, s := range b.Sources {
			rows[i] = map[string]any{"id": s.ID, "title": s.Title, "uri": s.URI, "occurred_at": s.OccurredAt, "metadata": nonNil(s.Metadata)}
		}
		got, err := t.rows(statementText("sources"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{rows}})
		if err != nil {
			return err
		}
		t.sources = got
		t.res.Sources = len(got)
	}
	named := map[string]string{}
	for i, m := range b.Memories {
		if _, ok := t.sources[m.Source]; m.Source != "" && !ok {
			named[m.Source] = fmt.Sprintf("memories[%d].source", i)
		}
	}
	stored, err := t.stored("sources", named)
	for id, sid := range stored {
		t.sources[id] = sid
	}
	return err
}

// writeMemories upserts the memories; those that existed lose their links, which the batch
// writes anew.
func (t *txn) writeMemories(b Batch) error {
	t.memories = map[string]int64{}
	if len(b.Memories) == 0 {
		return nil
	}
	dups, err := t.findDuplicates(b)
	if err != nil {
		return err
	}
	rows := make([]map[string]any, 0, len(b.Memories))
	vectors := make([]pgvector.Vector, 0, len(b.Memories)) // in binary beside the JSON rows
	for i, m := range b.Memories {
		if _, ok := dups[i]; ok && b.Duplicates == DuplicatesSkip {
			continue
		}
		var source any
		if m.Source != "" {
			source = t.sources[m.Source]
		}
		vectors = append(vectors, t.pre.vectors[i])
		rows = append(rows, map[string]any{"id": m.ID, "source": source, "kind": nilIfEmpty(m.Kind), "text": m.Text,
			"embedding": len(vectors), "occurred_start": m.OccurredStart, "occurred_end": m.OccurredEnd,
			"mentioned_at": m.MentionedAt, "refers_start": t.pre.refers[i][0], "refers_end": t.pre.refers[i][1], "expires_at": m.ExpiresAt,
			"valid_from": m.ValidFrom, "valid_until": m.ValidUntil, "tags": nonNilS(m.Tags), "metadata": nonNil(m.Metadata),
			"position": nilIfZero(m.Position), "speaker": strings.TrimSpace(m.Speaker)})
	}
	r, err := t.tx.Query(t.ctx, statementText("memories"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{rows}, "embeddings": vectors})
	if err != nil {
		return err
	}
	var updated []int64
	var ext string
	var id int64
	var existed bool
	_, err = pgx.ForEachRow(r, []any{&ext, &id, &existed}, func() error {
		t.memories[ext] = id
		if existed {
			updated = append(updated, id)
		}
		return nil
	})
	if err != nil {
		return err
	}
	t.res.Memories, t.res.Updated, t.res.Duplicates = len(t.memories), len(updated), len(dups)
	if b.Duplicates == DuplicatesSkip {
		for i, d := range dups { // a skipped memory is the one it restates
			if d.stored == 0 {
				d.stored = t.memories[b.Memories[d.earlier].ID]
			}
			t.memories[b.Memories[i].ID] = d.stored
		}
		if err := t.countRestatements(b, dups); err != nil {
			return err
		}
	}
	if err := t.linkDuplicates(b, dups); err != nil {
		return err
	}
	if len(updated) == 0 {
		return nil
	}
	slices.Sort(updated)
	_, err = t.tx.Exec(t.ctx, statementText("links"), pgx.NamedArgs{"ids": updated})
	return err
}

// writeEntities upserts the entities the caller gives.
func (t *txn) writeEntities(b Batch) error {
	t.entities = map[string]int64{}
	if len(b.Entities) == 0 {
		return nil
	}
	rows := make([]map[string]any, len(b.Entities))
	for i, en := range b.Entities {
		rows[i] = map[string]any{"id": en.ID, "name": en.Name, "kind": en.Kind, "aliases": nonNilS(en.Aliases),
			"blocked_aliases": lowered(en.BlockedAliases), "metadata": nonNil(en.Metadata)}
	}
	got, err := t.rows(statementText("entities"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{rows}})
	if err != nil {
		return err
	}
	t.entities = got
	t.res.Entities = len(got)
	return nil
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func nonNilS(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nilIfZero(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func lowered(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strings.ToLower(strings.TrimSpace(x))
	}
	return out
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

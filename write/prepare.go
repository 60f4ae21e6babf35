package write

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/recall-engine/recall/internal/dberr"
	"github.com/recall-engine/recall/internal/scope"
)

// Prepared is a batch checked and made ready to store: its scopes, and each memory's
// embedding and the span its text refers to, all computed before
// the transaction, so that a load can prepare a batch while the one before it is stored
// (records.LoadStaged). Writer.Store writes it.
type Prepared struct {
	b       Batch
	write   []string          // the caller's write scopes
	scopes  []string          // the batch's scope set
	vectors []pgvector.Vector // each memory's embedding
	refers  [][2]*time.Time   // each memory's Refers
}

// Batch is the batch p holds.
func (p *Prepared) Batch() Batch { return p.b }

// Prepare checks b for a caller who writes the scopes write (a bad row is an *Error, before
// anything is written) and embeds its memories (in batches, those that carry no embedding),
// without the database. Store writes what it returns.
func (w *Writer) Prepare(ctx context.Context, write []string, b Batch) (*Prepared, error) {
	scopes, err := Scopes(write, b.Scopes)
	if err != nil {
		return nil, err
	}
	if err := validate(b, w.Embedder.Dim()); err != nil {
		return nil, err
	}
	vecs, err := embedMemories(ctx, w.Embedder, b.Memories)
	if err != nil {
		return nil, err
	}
	p := &Prepared{b: b, write: write, scopes: scopes, vectors: make([]pgvector.Vector, len(vecs)), refers: make([][2]*time.Time, len(vecs))}
	for i, m := range b.Memories {
		p.vectors[i] = pgvector.NewVector(vecs[i])
		p.refers[i][0], p.refers[i][1] = Refers(m)
	}
	return p, nil
}

// Store writes p, prepared by this Writer, in one transaction as the caller who reads the
// scopes read and writes those p was prepared for: sources, memories, entities, mentions and
// relations. Unless the batch's NoExtract, entity names found in memory texts (and speakers)
// are linked to existing entities (same name or alias, else a close trigram match) or
// created, and entities named near each other in the same memory are related
// ("co_mentioned", each with the next CoMentionWindow in order of appearance). A memory
// written again gets its links replaced. Lexical data, BM25 statistics and vector indexes
// follow (triggers).
func (w *Writer) Store(ctx context.Context, read []string, p *Prepared) (Result, error) {
	b := p.b
	// The vector index is built, when missing, in a transaction of its own before the
	// batch's: as the owner's DDL it would touch every placement of memories on Citus before
	// the caller's rows do, which Citus refuses within one transaction; and a batch that fails
	// leaves only an index, which the next write needs anyway.
	if len(b.Memories) > 0 && !b.DeferVectorIndex && !w.indexed.Load() {
		if err := w.EnsureVectorIndex(ctx); err != nil {
			return Result{}, dberr.Interpret(ctx, "recall: write", err)
		}
	}
	var res Result
	owed := false
	err := pgx.BeginFunc(ctx, w.Pool, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, read, p.write, scope.Setting{Name: "pg_trgm.similarity_threshold", Value: strconv.FormatFloat(nameSimilarity, 'g', -1, 64)}); err != nil {
			return err
		}
		t := &txn{ctx: ctx, tx: tx, scopes: p.scopes, pre: p, res: &res, functional: w.Functional, now: time.Now()}
		owed = scope.Owed(tx)
		return t.write(b)
	})
	if err != nil {
		var we *Error
		if errors.As(err, &we) {
			return Result{}, err
		}
		return Result{}, dberr.Interpret(ctx, "recall: write", err)
	}
	return res, w.settle(ctx, owed, "recall: write")
}

package recall

import (
	"context"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/recall-engine/recall/internal/telemetry"
	"github.com/recall-engine/recall/records"
	"github.com/recall-engine/recall/write"
)

// The write path's types (package write).
type (
	// Batch is one transactional write: everything in it lands, or nothing does.
	Batch = write.Batch
	// Source is a document memories come from.
	Source = write.Source
	// Memory is one recallable unit.
	Memory = write.Memory
	// Entity is a person, place or thing memories mention.
	Entity = write.Entity
	// Relation is an edge of the entity graph.
	Relation = write.Relation
	// WriteResult counts what a batch wrote.
	WriteResult = write.Result
	// WriteError is a batch refused before anything was written: Item names the row
	// ("memories[3]"), Field the field, Problem what is wrong.
	WriteError = write.Error
	// EraseReceipt is what Erase removed: each table with its rows of the scope set, and when.
	EraseReceipt = write.Receipt
)

// CoMentionWindow is how many of the entities named after one in a memory it is related to.
const CoMentionWindow = write.CoMentionWindow

// Limits of the write path (package write says why each is what it is). Strings count
// bytes; a value over its limit is refused with a *WriteError naming it.
const (
	MaxIDLen         = write.MaxIDLen
	MaxTextLen       = write.MaxTextLen
	MaxNameLen       = write.MaxNameLen
	MaxSpeakerLen    = write.MaxSpeakerLen
	MaxTitleLen      = write.MaxTitleLen
	MaxURILen        = write.MaxURILen
	MaxTagLen        = write.MaxTagLen
	MaxPredicateLen  = write.MaxPredicateLen
	MaxScopeSetBytes = write.MaxScopeSetBytes
)

// Write stores b as user in one transaction (package write says how): all of it lands or
// none of it does, and a bad row is refused before anything is written with a *WriteError.
// It is Prepare, then the prepared batch's Write.
func (e *Engine) Write(ctx context.Context, user User, b Batch) (WriteResult, error) {
	p, err := e.Prepare(ctx, user, b)
	if err != nil {
		return WriteResult{}, err
	}
	return p.Write(ctx)
}

// PreparedWrite is a batch checked and embedded for a user, without the database
// (Engine.Prepare); its Write stores it (the batch must not change in between). A load
// prepares a batch while the one before it is stored, so the embedder's work and the
// server's overlap (`recall ingest`, POST /v1/ingest).
type PreparedWrite struct {
	e    *Engine
	user User
	who  caller
	p    *write.Prepared
}

// Prepare checks b for user (a bad row is a *WriteError) and embeds its memories, without
// writing anything.
func (e *Engine) Prepare(ctx context.Context, user User, b Batch) (_ *PreparedWrite, err error) {
	ctx, span := telemetry.Start(ctx, "recall.write.prepare", attribute.Int("recall.batch.memories", len(b.Memories)))
	defer func() { telemetry.End(span, err) }()
	who, err := user.check()
	if err != nil {
		return nil, err
	}
	p, err := e.writer.Prepare(ctx, who.write, b)
	if err != nil {
		return nil, err
	}
	return &PreparedWrite{e: e, user: user, who: who, p: p}, nil
}

// Write stores the prepared batch in one transaction.
func (pw *PreparedWrite) Write(ctx context.Context) (_ WriteResult, err error) {
	e, b := pw.e, pw.p.Batch()
	ctx, span := telemetry.Start(ctx, "recall.write", telemetry.MemoryOp(telemetry.OpUpsertMemory), telemetry.MemoryRecords(len(b.Memories)),
		attribute.Int("recall.batch.memories", len(b.Memories)),
		attribute.Int("recall.batch.sources", len(b.Sources)), attribute.Int("recall.batch.entities", len(b.Entities)),
		attribute.Int("recall.batch.relations", len(b.Relations)))
	defer func() { telemetry.End(span, err) }()
	res, err := e.writer.Store(ctx, pw.who.read, pw.p)
	span.SetAttributes(attribute.Int("recall.written.memories", res.Memories), attribute.Int("recall.written.updated", res.Updated))
	if err == nil {
		e.noteWrite(ctx, pw.user)
	}
	if err == nil && len(b.Memories) > 0 && !b.DeferVectorIndex {
		// The batch may have created the dimension's index: refresh the dimension check's
		// list (a failure only delays the refresh).
		e.dims.Stored(ctx, e.cfg.Pool, true) //nolint:errcheck // see above
	}
	return res, err
}

// Delete removes memories of scopes (nil: the user's only write scope) by ID, with their
// mentions, the relations they are evidence for, their access rows and the summaries that
// cover them; extracted entities nothing mentions any more go too. It returns how many of
// the named memories were deleted; an id that is empty,
// too long, invalid UTF-8 or holds a NUL byte is refused with a *WriteError ("ids[2].id").
func (e *Engine) Delete(ctx context.Context, user User, scopes []string, ids []string) (_ int, err error) {
	ctx, span := telemetry.Start(ctx, "recall.delete", attribute.Int("recall.ids", len(ids)),
		telemetry.MemoryOp(telemetry.OpDeleteMemory), telemetry.MemoryRecords(len(ids)))
	defer func() { telemetry.End(span, err) }()
	who, err := user.check()
	if err != nil {
		return 0, err
	}
	n, err := e.writer.Delete(ctx, who.read, who.write, scopes, ids)
	span.SetAttributes(attribute.Int("recall.deleted", n))
	if err == nil {
		e.noteWrite(ctx, user)
	}
	return n, err
}

// Prune deletes the memories of scopes (nil: the user's only write scope) that have expired
// (Memory.ExpiresAt at or before now; a zero now is Config.Now's), as Delete deletes them, and
// returns how many. Recall leaves expired memories out from the moment they expire; Prune
// frees their space.
func (e *Engine) Prune(ctx context.Context, user User, scopes []string, now time.Time) (_ int, err error) {
	ctx, span := telemetry.Start(ctx, "recall.prune", telemetry.MemoryOp(telemetry.OpDeleteMemory))
	defer func() { telemetry.End(span, err) }()
	who, err := user.check()
	if err != nil {
		return 0, err
	}
	if now.IsZero() {
		now = e.cfg.Now()
	}
	n, err := e.writer.Prune(ctx, who.read, who.write, scopes, now)
	span.SetAttributes(attribute.Int("recall.deleted", n), telemetry.MemoryRecords(n))
	if err == nil && n > 0 {
		e.noteWrite(ctx, user)
	}
	return n, err
}

// Supersede marks the stored memories olds of scopes (nil: the user's only write scope) as
// superseded by the stored memory by of the same scope set, from at (nil: by's valid_from,
// else its occurred_start, else now), as a batch's Memory.Supersedes does, and returns how
// many it marked. Recall then answers with by where it would have answered with them
// (Options.AsOf asks about a time before). An id that is not a memory of the scope set the
// user sees is refused with a *WriteError naming the field.
func (e *Engine) Supersede(ctx context.Context, user User, scopes []string, by string, olds []string, at *time.Time) (_ int, err error) {
	ctx, span := telemetry.Start(ctx, "recall.supersede", attribute.Int("recall.ids", len(olds)),
		telemetry.MemoryOp(telemetry.OpUpdateMemory), telemetry.MemoryRecords(len(olds)))
	defer func() { telemetry.End(span, err) }()
	who, err := user.check()
	if err != nil {
		return 0, err
	}
	n, err := e.writer.Supersede(ctx, who.read, who.write, scopes, by, olds, at, "")
	span.SetAttributes(attribute.Int("recall.superseded", n))
	if err == nil && n > 0 {
		e.noteWrite(ctx, user)
	}
	return n, err
}

// Erase removes everything of scope set scopes (nil: the user's only write scope; the user
// must write every scope of it) in one transaction: its sources, memories and summaries,
// entities, relations, access counts and the statistics and postings recall keeps of it, in
// every table of the schema that holds scope sets, and returns the receipt (each table's
// rows of the set, the transaction's time). A recall meanwhile sees the set whole or not at
// all; no other set's rows or statistics change. Writes of every set wait until it commits.
// dry counts what it would remove and removes nothing.
func (e *Engine) Erase(ctx context.Context, user User, scopes []string, dry bool) (_ EraseReceipt, err error) {
	ctx, span := telemetry.Start(ctx, "recall.erase", telemetry.MemoryOp(telemetry.OpDeleteMemory))
	defer func() { telemetry.End(span, err) }()
	who, err := user.check()
	if err != nil {
		return EraseReceipt{}, err
	}
	r, err := e.writer.Erase(ctx, who.read, who.write, scopes, dry)
	if err != nil {
		return EraseReceipt{}, err
	}
	span.SetAttributes(attribute.Int64("recall.erased_rows", r.Total()), telemetry.MemoryRecords(int(r.Tables["memories"])))
	if !dry && r.Total() > 0 {
		e.noteWrite(ctx, user)
	}
	return r, nil
}

// MemoryIDs lists the external ids of the memories of scope set scopes (nil: the user's only
// write scope; each must be one of the user's write scopes), in id order, read as the user.
func (e *Engine) MemoryIDs(ctx context.Context, user User, scopes []string) ([]string, error) {
	who, err := user.check()
	if err != nil {
		return nil, err
	}
	return e.writer.IDs(ctx, who.read, who.write, scopes)
}

// Places returns the greatest place stored in each of sources (external ids) of scope set
// scopes (nil: the user's only write scope), read as the user: a resumed ingest
// (records.Resume) continues a conversation's places after it.
func (e *Engine) Places(ctx context.Context, user User, scopes, sources []string) (map[string]int, error) {
	who, err := user.check()
	if err != nil {
		return nil, err
	}
	return e.writer.Places(ctx, who.read, who.write, scopes, sources)
}

// HasVectorIndex reports whether the database has the vector index of the engine
// embedder's dimension.
func (e *Engine) HasVectorIndex(ctx context.Context) (bool, error) {
	dims, err := e.dims.Stored(ctx, e.cfg.Pool, true)
	if err != nil {
		return false, err
	}
	return slices.Contains(dims, e.cfg.Embedder.Dim()), nil
}

// EnsureVectorIndex creates the vector index of the engine embedder's dimension when it is
// missing (after a load with Batch.DeferVectorIndex). It blocks writes to memories while it
// builds.
func (e *Engine) EnsureVectorIndex(ctx context.Context) error {
	if err := e.writer.EnsureVectorIndex(ctx); err != nil {
		return err
	}
	_, err := e.dims.Stored(ctx, e.cfg.Pool, true)
	return err
}

// Stage is a load's two steps of a write (records.LoadStaged): Prepare, then the prepared
// batch's Write, so that a load embeds a batch while the one before it is stored.
func Stage(e *Engine, user User) records.Stage {
	return func(ctx context.Context, b Batch) (records.Commit, error) {
		p, err := e.Prepare(ctx, user, b)
		if err != nil {
			return nil, err
		}
		return p.Write, nil
	}
}

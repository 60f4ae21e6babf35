package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/extract"
	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/sql"
)

// Batch is one transactional write: everything in it lands, or nothing does. Rows are
// addressed by external id within the batch's scope set; writing an id again updates it.
type Batch struct {
	// Scopes is the scope set every row of the batch belongs to; each must be one of the
	// user's write scopes (nil: the user's only write scope).
	Scopes    []string
	Sources   []Source
	Memories  []Memory
	Entities  []Entity
	Relations []Relation
	// NoExtract turns off entity extraction from memory texts for this batch.
	NoExtract bool
	// ExactEntityLinks links extracted names to existing entities by exact name or alias
	// only, skipping the trigram match (which costs milliseconds per new multi-word name: a
	// bulk load of entity-dense text may prefer to skip it).
	ExactEntityLinks bool
	// DeferVectorIndex leaves the vector index of the embedder's dimension uncreated when it
	// does not exist yet: a bulk load then calls EnsureVectorIndex once at the end, which
	// builds it far faster than inserting row by row. Until then the vector lane scans.
	DeferVectorIndex bool
}

// Source is a document memories come from.
type Source struct {
	ID         string
	Title      string
	URI        string
	OccurredAt *time.Time
	Metadata   map[string]any
}

// Memory is one recallable unit.
type Memory struct {
	ID     string
	Source string // a source's ID, in this batch or already stored
	Kind   string // world (default), experience, observation, summary
	Text   string
	// Embedding, when set, is stored as is and must have the engine embedder's dimension;
	// otherwise the engine embeds Text.
	Embedding     []float32
	OccurredStart *time.Time
	OccurredEnd   *time.Time
	MentionedAt   *time.Time
	Tags          []string
	Metadata      map[string]any
	// Speaker, when set, is an entity (a person) the memory mentions.
	Speaker string
	// Entities are entity IDs (in this batch or stored) the memory mentions, besides those
	// extracted from Text.
	Entities []string
}

// Entity is a person, place or thing memories mention.
type Entity struct {
	ID       string
	Name     string
	Kind     string
	Aliases  []string
	Metadata map[string]any
}

// Relation is an edge of the entity graph.
type Relation struct {
	From, To  string  // entity IDs
	Predicate string  // default "related_to"
	Weight    float64 // default 1
	Memory    string  // optional: the memory this relation comes from
}

// WriteResult counts what a batch wrote.
type WriteResult struct {
	Sources, Memories, Entities int // rows inserted or updated
	Updated                     int // memories that existed before
	Extracted                   int // entities created from extracted names
	Mentions, Relations         int
}

// WriteError is a batch refused before anything was written: Item names the row
// ("memories[3]"), Field the field, Problem what is wrong.
type WriteError struct {
	Item    string
	Field   string
	Problem string
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("recall: write: %s.%s: %s", e.Item, e.Field, e.Problem)
}

// CoMentionWindow is how many of the entities named after one in a memory it is related to
// (co_mentioned): neighbours in order of appearance.
const CoMentionWindow = 3

// Limits of the write path, the same as the schema's checks.
const (
	MaxIDLen   = 512
	MaxTextLen = 1_000_000
)

var kinds = []string{"world", "experience", "observation", "summary"}

func writeSQL(name string) string {
	b, err := sqltext.Write.ReadFile("write/" + name + ".sql")
	if err != nil {
		panic("recall: missing write statement " + name) // embedded at build time
	}
	return string(b)
}

// batchScopes returns the batch's normalized scope set, which must lie within the user's
// write scopes.
func batchScopes(who caller, b Batch) ([]string, error) {
	if len(b.Scopes) == 0 {
		if len(who.write) != 1 {
			return nil, &WriteError{Item: "batch", Field: "scopes", Problem: fmt.Sprintf("the user writes %d scopes: name the batch's", len(who.write))}
		}
		return who.write, nil
	}
	s, err := scope.Normalize("batch.scopes", b.Scopes)
	if err != nil {
		return nil, &WriteError{Item: "batch", Field: "scopes", Problem: err.Error()}
	}
	for _, x := range s {
		if !slices.Contains(who.write, x) {
			return nil, &WriteError{Item: "batch", Field: "scopes", Problem: fmt.Sprintf("%q is not one of the user's write scopes", x)}
		}
	}
	return s, nil
}

func checkID(item, field, id string, required bool) error {
	switch {
	case id == "" && required:
		return &WriteError{Item: item, Field: field, Problem: "empty"}
	case len(id) > MaxIDLen:
		return &WriteError{Item: item, Field: field, Problem: fmt.Sprintf("%d bytes, the limit is %d", len(id), MaxIDLen)}
	case !utf8.ValidString(id) || strings.IndexByte(id, 0) >= 0:
		return &WriteError{Item: item, Field: field, Problem: "invalid UTF-8 or a NUL byte"}
	}
	return nil
}

func checkStr(item, field, s string) error {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return &WriteError{Item: item, Field: field, Problem: "invalid UTF-8 or a NUL byte"}
	}
	return nil
}

// validate checks every row before anything is written.
func (e *Engine) validate(b Batch) error {
	seen := map[string]bool{}
	dup := func(kind, id string, i int) error {
		k := kind + "\x00" + id
		if seen[k] {
			return &WriteError{Item: fmt.Sprintf("%s[%d]", kind, i), Field: "id", Problem: fmt.Sprintf("%q appears twice in the batch", id)}
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
		item := fmt.Sprintf("memories[%d]", i)
		if err := checkID(item, "id", m.ID, true); err != nil {
			return err
		}
		if err := dup("memories", m.ID, i); err != nil {
			return err
		}
		if err := checkID(item, "source", m.Source, false); err != nil {
			return err
		}
		switch {
		case strings.TrimSpace(m.Text) == "":
			return &WriteError{Item: item, Field: "text", Problem: "empty"}
		case len(m.Text) > MaxTextLen:
			return &WriteError{Item: item, Field: "text", Problem: fmt.Sprintf("%d bytes, the limit is %d", len(m.Text), MaxTextLen)}
		case m.Kind != "" && !slices.Contains(kinds, m.Kind):
			return &WriteError{Item: item, Field: "kind", Problem: fmt.Sprintf("%q: want one of %s", m.Kind, strings.Join(kinds, ", "))}
		case m.Embedding != nil && len(m.Embedding) != e.cfg.Embedder.Dim():
			return &WriteError{Item: item, Field: "embedding", Problem: fmt.Sprintf("%d dimensions, the engine's embedder has %d", len(m.Embedding), e.cfg.Embedder.Dim())}
		case m.OccurredStart != nil && m.OccurredEnd != nil && m.OccurredEnd.Before(*m.OccurredStart):
			return &WriteError{Item: item, Field: "occurred_end", Problem: "before occurred_start"}
		}
		if err := checkStr(item, "text", m.Text); err != nil {
			return err
		}
		if err := checkStr(item, "speaker", m.Speaker); err != nil {
			return err
		}
		for j, t := range m.Tags {
			if t == "" || checkStr(item, "tags", t) != nil {
				return &WriteError{Item: item, Field: fmt.Sprintf("tags[%d]", j), Problem: "empty, invalid UTF-8 or a NUL byte"}
			}
		}
		for j, id := range m.Entities {
			if err := checkID(item, fmt.Sprintf("entities[%d]", j), id, true); err != nil {
				return err
			}
		}
	}
	for i, en := range b.Entities {
		item := fmt.Sprintf("entities[%d]", i)
		if err := checkID(item, "id", en.ID, true); err != nil {
			return err
		}
		if strings.HasPrefix(en.ID, "auto:") {
			return &WriteError{Item: item, Field: "id", Problem: `ids starting "auto:" are the engine's, for extracted entities`}
		}
		if err := dup("entities", en.ID, i); err != nil {
			return err
		}
		if strings.TrimSpace(en.Name) == "" || len(en.Name) > 512 || checkStr(item, "name", en.Name) != nil {
			return &WriteError{Item: item, Field: "name", Problem: "empty, over 512 bytes, invalid UTF-8 or a NUL byte"}
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
			return &WriteError{Item: item, Field: "to", Problem: "a relation joins two different entities"}
		}
		if r.Weight < 0 || r.Weight > 1e9 || r.Weight != r.Weight {
			return &WriteError{Item: item, Field: "weight", Problem: "want a positive finite weight (0: 1)"}
		}
	}
	return nil
}

type idRow struct {
	ExternalID string
	ID         int64
}

// Write stores b as user in one transaction: sources, memories (embedded in batches by the
// engine's embedder when they carry no embedding), entities, mentions and relations.
// Unless b.NoExtract, entity names found in memory texts (and speakers) are linked to
// existing entities (same name or alias, else a close trigram match) or created, and
// entities named near each other in the same memory are related ("co_mentioned", each with
// the next CoMentionWindow in order of appearance). A memory written
// again gets its links replaced. Lexical data, BM25 statistics and vector indexes follow.
func (e *Engine) Write(ctx context.Context, user User, b Batch) (WriteResult, error) {
	var res WriteResult
	who, err := user.check()
	if err != nil {
		return res, err
	}
	scopes, err := batchScopes(who, b)
	if err != nil {
		return res, err
	}
	if err := e.validate(b); err != nil {
		return res, err
	}
	vecs, err := e.embedMemories(ctx, b.Memories)
	if err != nil {
		return res, err
	}
	err = pgx.BeginFunc(ctx, e.cfg.Pool, func(tx pgx.Tx) error {
		w := &writer{ctx: ctx, tx: tx, scopes: scopes, res: &res}
		if err := scope.Apply(ctx, tx, who.read, who.write, scope.Setting{Name: "pg_trgm.similarity_threshold", Value: "0.8"}); err != nil {
			return err
		}
		return w.write(e, b, vecs)
	})
	if err != nil {
		var we *WriteError
		if errors.As(err, &we) {
			return WriteResult{}, err
		}
		return WriteResult{}, fmt.Errorf("recall: write: %w", err)
	}
	if len(b.Memories) > 0 && !b.DeferVectorIndex {
		// The batch may have created the dimension's index: refresh the dimension check's
		// cache (a failure only delays the refresh).
		e.storedDims(ctx, true) //nolint:errcheck // see above
	}
	return res, nil
}

// embedMemories returns each memory's embedding: given, or from the embedder in batches.
func (e *Engine) embedMemories(ctx context.Context, ms []Memory) ([][]float32, error) {
	out := make([][]float32, len(ms))
	var idx []int
	var texts []string
	for i, m := range ms {
		if m.Embedding != nil {
			out[i] = embed.Normalize(slices.Clone(m.Embedding))
			continue
		}
		idx = append(idx, i)
		texts = append(texts, m.Text)
	}
	// Chunks of up to 256 texts, embedded concurrently (embedders are safe for concurrent
	// use; the built-in one is CPU-bound, HTTP ones wait on the network).
	const batch = 256
	var chunks [][2]int
	for lo := 0; lo < len(texts); lo += batch {
		chunks = append(chunks, [2]int{lo, min(len(texts), lo+batch)})
	}
	errs := make([]error, len(chunks))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for k, c := range chunks {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			vs, err := e.cfg.Embedder.Embed(ctx, texts[c[0]:c[1]], embed.Document)
			if err != nil {
				var ie *embed.InputError
				if errors.As(err, &ie) {
					errs[k] = &WriteError{Item: fmt.Sprintf("memories[%d]", idx[c[0]+ie.Index]), Field: "text", Problem: ie.Problem.Error()}
				} else {
					errs[k] = fmt.Errorf("recall: write: embedding memories: %w", err)
				}
				return
			}
			for j, v := range vs {
				out[idx[c[0]+j]] = v
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// HasVectorIndex reports whether the database has the vector index of the engine
// embedder's dimension.
func (e *Engine) HasVectorIndex(ctx context.Context) (bool, error) {
	dims, err := e.storedDims(ctx, true)
	if err != nil {
		return false, err
	}
	return slices.Contains(dims, e.cfg.Embedder.Dim()), nil
}

// EnsureVectorIndex creates the vector index of the engine embedder's dimension when it is
// missing (after a load with Batch.DeferVectorIndex). It blocks writes to memories while it
// builds.
func (e *Engine) EnsureVectorIndex(ctx context.Context) error {
	err := pgx.BeginFunc(ctx, e.cfg.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '1GB'`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT recall.ensure_vector_index($1)`, e.cfg.Embedder.Dim())
		return err
	})
	if err != nil {
		return fmt.Errorf("recall: vector index: %w", err)
	}
	_, err = e.storedDims(ctx, true)
	return err
}

type writer struct {
	ctx    context.Context
	tx     pgx.Tx
	scopes []string
	res    *WriteResult
}

func (w *writer) rows(sql string, args pgx.NamedArgs) (map[string]int64, error) {
	rows, err := w.tx.Query(w.ctx, sql, args)
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

func jsonArg(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps, strings, numbers and times
	}
	return string(b)
}

// ids returns the ids of stored rows of table by external id, failing on any missing one.
func (w *writer) ids(table string, want map[string]string) (map[string]int64, error) {
	if len(want) == 0 {
		return map[string]int64{}, nil
	}
	ext := make([]string, 0, len(want))
	for id := range want {
		ext = append(ext, id)
	}
	slices.Sort(ext)
	got, err := w.rows(writeSQL("ids"), pgx.NamedArgs{"table": table, "scopes": w.scopes, "ids": ext})
	if err != nil {
		return nil, err
	}
	for _, id := range ext {
		if _, ok := got[id]; !ok {
			item, field, _ := strings.Cut(want[id], ".")
			singular := map[string]string{"sources": "source", "entities": "entity", "memories": "memory"}[table]
			return nil, &WriteError{Item: item, Field: field, Problem: fmt.Sprintf("no %s %q in scopes %v (in the batch or stored)", singular, id, w.scopes)}
		}
	}
	return got, nil
}

func (w *writer) write(e *Engine, b Batch, vecs [][]float32) error {
	ctx, tx := w.ctx, w.tx
	if len(b.Memories) > 0 && !b.DeferVectorIndex {
		if _, err := tx.Exec(ctx, `SELECT recall.ensure_vector_index($1)`, e.cfg.Embedder.Dim()); err != nil {
			return err
		}
	}
	// Sources.
	srcIDs := map[string]int64{}
	if len(b.Sources) > 0 {
		rows := make([]map[string]any, len(b.Sources))
		for i, s := range b.Sources {
			rows[i] = map[string]any{"id": s.ID, "title": s.Title, "uri": s.URI, "occurred_at": s.OccurredAt, "metadata": nonNil(s.Metadata)}
		}
		got, err := w.rows(writeSQL("sources"), pgx.NamedArgs{"scopes": w.scopes, "rows": jsonArg(rows)})
		if err != nil {
			return err
		}
		srcIDs = got
		w.res.Sources = len(got)
	}
	stored := map[string]string{}
	for i, m := range b.Memories {
		if _, ok := srcIDs[m.Source]; m.Source != "" && !ok {
			stored[m.Source] = fmt.Sprintf("memories[%d].source", i)
		}
	}
	if _, err := w.ids("sources", stored); err != nil {
		return err
	}
	// Memories.
	memIDs := map[string]int64{}
	if len(b.Memories) > 0 {
		rows := make([]map[string]any, len(b.Memories))
		for i, m := range b.Memories {
			rows[i] = map[string]any{"id": m.ID, "source": nilIfEmpty(m.Source), "kind": nilIfEmpty(m.Kind), "text": m.Text,
				"embedding": vectorText(vecs[i]), "occurred_start": m.OccurredStart, "occurred_end": m.OccurredEnd,
				"mentioned_at": m.MentionedAt, "tags": nonNilS(m.Tags), "metadata": nonNil(m.Metadata)}
		}
		r, err := tx.Query(ctx, writeSQL("memories"), pgx.NamedArgs{"scopes": w.scopes, "rows": jsonArg(rows)})
		if err != nil {
			return err
		}
		var updated []int64
		var ext string
		var id int64
		var existed bool
		_, err = pgx.ForEachRow(r, []any{&ext, &id, &existed}, func() error {
			memIDs[ext] = id
			if existed {
				updated = append(updated, id)
			}
			return nil
		})
		if err != nil {
			return err
		}
		w.res.Memories, w.res.Updated = len(memIDs), len(updated)
		if len(updated) > 0 {
			slices.Sort(updated)
			if _, err := tx.Exec(ctx, writeSQL("links"), pgx.NamedArgs{"ids": updated}); err != nil {
				return err
			}
		}
	}
	// Entities given by the caller.
	entIDs := map[string]int64{}
	if len(b.Entities) > 0 {
		rows := make([]map[string]any, len(b.Entities))
		for i, en := range b.Entities {
			rows[i] = map[string]any{"id": en.ID, "name": en.Name, "kind": en.Kind, "aliases": nonNilS(en.Aliases), "metadata": nonNil(en.Metadata)}
		}
		got, err := w.rows(writeSQL("entities"), pgx.NamedArgs{"scopes": w.scopes, "rows": jsonArg(rows), "keep_existing": false})
		if err != nil {
			return err
		}
		entIDs = got
		w.res.Entities = len(got)
	}
	// Entities named by reference (memories' entity lists, relations) must exist.
	refs := map[string]string{}
	for i, m := range b.Memories {
		for j, id := range m.Entities {
			if _, ok := entIDs[id]; !ok {
				refs[id] = fmt.Sprintf("memories[%d].entities[%d]", i, j)
			}
		}
	}
	more, err := w.ids("entities", refs)
	if err != nil {
		return err
	}
	for k, v := range more {
		entIDs[k] = v
	}
	// Mentions: given entities, speakers and extracted names.
	mentioned := make([][]int64, len(b.Memories))
	names := map[string]string{} // lowered name -> name as first seen
	create := map[string]bool{}  // names that may become new entities (not weak ones)
	memNames := make([][]string, len(b.Memories))
	for i, m := range b.Memories {
		var strong, weak []string
		if m.Speaker != "" {
			strong = append(strong, strings.TrimSpace(m.Speaker))
		}
		if !b.NoExtract {
			s, w := extract.Find(m.Text)
			strong, weak = append(strong, s...), w
		}
		for j, n := range append(strong, weak...) {
			if n == "" {
				continue
			}
			k := strings.ToLower(n)
			if _, ok := names[k]; !ok {
				names[k] = n
			}
			if j < len(strong) {
				create[k] = true
			}
			memNames[i] = append(memNames[i], k)
		}
		for _, id := range m.Entities {
			mentioned[i] = append(mentioned[i], entIDs[id])
		}
	}
	if len(names) > 0 {
		byName, err := w.resolve(names, create, speakers(b.Memories), !b.ExactEntityLinks)
		if err != nil {
			return err
		}
		for i := range b.Memories {
			for _, k := range memNames[i] {
				if id, ok := byName[k]; ok { // weak names without an entity stay unlinked
					mentioned[i] = append(mentioned[i], id)
				}
			}
		}
	}
	// Relation ends may name entities stored, given, or just extracted ("auto:..." ids).
	refs = map[string]string{}
	for i, r := range b.Relations {
		for _, end := range [][2]string{{"from", r.From}, {"to", r.To}} {
			if _, ok := entIDs[end[1]]; !ok {
				refs[end[1]] = fmt.Sprintf("relations[%d].%s", i, end[0])
			}
		}
	}
	if more, err = w.ids("entities", refs); err != nil {
		return err
	}
	for k, v := range more {
		entIDs[k] = v
	}
	var mentionRows, relationRows []map[string]any
	for i, m := range b.Memories {
		// Entities in order of appearance, each once.
		var ents []int64
		seen := map[int64]bool{}
		for _, id := range mentioned[i] {
			if !seen[id] {
				seen[id] = true
				ents = append(ents, id)
			}
		}
		mid := memIDs[m.ID]
		pairs := map[[2]int64]bool{}
		for j, a := range ents {
			mentionRows = append(mentionRows, map[string]any{"m": mid, "e": a})
			// Co-mentions within a window of the next CoMentionWindow entities: a memory naming
			// thirty entities relates neighbours, not all 435 pairs.
			for _, c := range ents[j+1 : min(len(ents), j+1+CoMentionWindow)] {
				pair := [2]int64{min(a, c), max(a, c)}
				if !pairs[pair] {
					pairs[pair] = true
					relationRows = append(relationRows, map[string]any{"src": pair[0], "dst": pair[1], "predicate": "co_mentioned", "weight": 1.0, "memory": mid})
				}
			}
		}
	}
	for i, r := range b.Relations {
		rel := map[string]any{"src": entIDs[r.From], "dst": entIDs[r.To], "predicate": orDefault(r.Predicate, "related_to"), "weight": r.Weight, "memory": nil}
		if r.Weight == 0 {
			rel["weight"] = 1.0
		}
		if r.Memory != "" {
			mid, ok := memIDs[r.Memory]
			if !ok {
				got, err := w.ids("memories", map[string]string{r.Memory: fmt.Sprintf("relations[%d].memory", i)})
				if err != nil {
					return err
				}
				mid = got[r.Memory]
			}
			rel["memory"] = mid
		}
		relationRows = append(relationRows, rel)
	}
	if len(mentionRows) > 0 {
		tag, err := tx.Exec(ctx, writeSQL("mentions"), pgx.NamedArgs{"scopes": w.scopes, "rows": jsonArg(mentionRows)})
		if err != nil {
			return err
		}
		w.res.Mentions = int(tag.RowsAffected())
	}
	if len(relationRows) > 0 {
		tag, err := tx.Exec(ctx, writeSQL("relations"), pgx.NamedArgs{"scopes": w.scopes, "rows": jsonArg(relationRows)})
		if err != nil {
			return err
		}
		w.res.Relations = int(tag.RowsAffected())
	}
	if w.res.Updated > 0 {
		if _, err := tx.Exec(ctx, writeSQL("orphans"), pgx.NamedArgs{"scopes": w.scopes}); err != nil {
			return err
		}
	}
	return nil
}

func speakers(ms []Memory) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		if m.Speaker != "" {
			out[strings.ToLower(strings.TrimSpace(m.Speaker))] = true
		}
	}
	return out
}

// resolve maps lowered names to entity ids: existing entities by name, alias or a close
// trigram match, else, for names in create, new extracted entities ("auto:" + the lowered
// name). Other names without a match are left out.
func (w *writer) resolve(names map[string]string, create, persons map[string]bool, fuzzy bool) (map[string]int64, error) {
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rows, err := w.tx.Query(w.ctx, writeSQL("resolve"), pgx.NamedArgs{"names": keys, "scopes": w.scopes})
	if err != nil {
		return nil, err
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByPos[idRow])
	if err != nil {
		return nil, err
	}
	exact := map[string]bool{}
	for _, r := range found {
		exact[r.ExternalID] = true
	}
	var loose []string
	for _, k := range keys {
		if !exact[k] && strings.Contains(k, " ") {
			loose = append(loose, k)
		}
	}
	if len(loose) > 0 && fuzzy {
		rows, err := w.tx.Query(w.ctx, writeSQL("resolve_fuzzy"), pgx.NamedArgs{"names": loose, "scopes": w.scopes})
		if err != nil {
			return nil, err
		}
		more, err := pgx.CollectRows(rows, pgx.RowToStructByPos[idRow])
		if err != nil {
			return nil, err
		}
		found = append(found, more...)
	}
	out := map[string]int64{}
	for _, r := range found {
		out[r.ExternalID] = r.ID
	}
	var rowsNew []map[string]any
	for _, k := range keys {
		if _, ok := out[k]; ok || !create[k] {
			continue
		}
		kind := ""
		if persons[k] {
			kind = "person"
		}
		rowsNew = append(rowsNew, map[string]any{"id": "auto:" + k, "name": names[k], "kind": kind})
	}
	if len(rowsNew) > 0 {
		got, err := w.rows(writeSQL("entities"), pgx.NamedArgs{"scopes": w.scopes, "rows": jsonArg(rowsNew), "keep_existing": true})
		if err != nil {
			return nil, err
		}
		for ext, id := range got {
			out[strings.TrimPrefix(ext, "auto:")] = id
		}
		w.res.Extracted += len(got)
	}
	return out, nil
}

// Delete removes memories of scopes (nil: the user's only write scope) by ID, with their
// mentions, the relations they are evidence for and their access rows; extracted entities
// nothing mentions any more go too. It returns how many were deleted.
func (e *Engine) Delete(ctx context.Context, user User, scopes []string, ids []string) (int, error) {
	who, err := user.check()
	if err != nil {
		return 0, err
	}
	sc, err := batchScopes(who, Batch{Scopes: scopes})
	if err != nil {
		return 0, err
	}
	n := 0
	err = pgx.BeginFunc(ctx, e.cfg.Pool, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, who.read, who.write); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, writeSQL("delete"), pgx.NamedArgs{"scopes": sc, "ids": ids})
		if err != nil {
			return err
		}
		n = int(tag.RowsAffected())
		_, err = tx.Exec(ctx, writeSQL("orphans"), pgx.NamedArgs{"scopes": sc})
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("recall: delete: %w", err)
	}
	return n, nil
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

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// vectorText writes v in pgvector's text form, exactly (shortest float32 representation).
func vectorText(v []float32) string {
	var b strings.Builder
	b.Grow(len(v) * 10)
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}

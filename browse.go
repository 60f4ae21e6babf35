package recall

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/dberr"
	"github.com/recall-engine/recall/internal/scope"
	sqltext "github.com/recall-engine/recall/sql"
	"github.com/recall-engine/recall/statement"
)

// The limits of a browse.
const (
	DefaultBrowseLimit = 50
	MaxBrowseLimit     = 200
	MaxBrowseOffset    = 10000
	MaxBrowseFilter    = 512 // bytes of a text, tag, kind, source or scope filter
	BrowseSourcesLimit = 100
	NeighbourSpan      = 3 // places each way Engine.Memory reads around a memory
	MemoryRelations    = 25
)

// BrowseQuery selects memories to list (Engine.Browse). Every filter is optional; all that
// are set must hold.
type BrowseQuery struct {
	Scope  string     `json:"scope,omitempty"`  // only scope sets holding this scope
	Source string     `json:"source,omitempty"` // a source's id: its memories, in place order
	Kind   string     `json:"kind,omitempty"`   // world, experience, observation or summary
	Tag    string     `json:"tag,omitempty"`    // memories carrying this tag
	Text   string     `json:"text,omitempty"`   // memories whose text holds this, case aside
	From   *time.Time `json:"from,omitempty"`   // occurred_start at or after
	To     *time.Time `json:"to,omitempty"`     // occurred_start before
	Limit  int        `json:"limit,omitempty"`  // rows to return (default 50, at most 200)
	Offset int        `json:"offset,omitempty"` // rows to skip (at most 10,000)
}

// MemoryRow is one memory as Browse lists it.
type MemoryRow struct {
	ID            string     `json:"id" db:"id"`
	Scopes        []string   `json:"scopes" db:"scopes"`
	Kind          string     `json:"kind" db:"kind"`
	Text          string     `json:"text" db:"text"`
	Speaker       string     `json:"speaker,omitempty" db:"speaker"`
	Source        *string    `json:"source,omitempty" db:"source"`
	SourceTitle   *string    `json:"source_title,omitempty" db:"source_title"`
	Position      *int       `json:"position,omitempty" db:"position"`
	OccurredStart *time.Time `json:"occurred_start,omitempty" db:"occurred_start"`
	Tags          []string   `json:"tags" db:"tags"`
	AccessCount   int64      `json:"access_count" db:"access_count"`
	LastAccessed  *time.Time `json:"last_accessed,omitempty" db:"last_accessed"`
	SupersededBy  *string    `json:"superseded_by,omitempty" db:"superseded_by"`
	DuplicateOf   *string    `json:"duplicate_of,omitempty" db:"duplicate_of"`
	ExpiresAt     *time.Time `json:"expires_at,omitempty" db:"expires_at"`
	ValidFrom     *time.Time `json:"valid_from,omitempty" db:"valid_from"`
	ValidUntil    *time.Time `json:"valid_until,omitempty" db:"valid_until"`
}

// SourceRow is a source Browse lists, with how many memories it holds.
type SourceRow struct {
	ID         string     `json:"id" db:"id"`
	Title      string     `json:"title,omitempty" db:"title"`
	OccurredAt *time.Time `json:"occurred_at,omitempty" db:"occurred_at"`
	Memories   int64      `json:"memories" db:"memories"`
}

// BrowseResult is a page of memories and the sources they may be browsed by.
type BrowseResult struct {
	Memories []MemoryRow `json:"memories"`
	// More says that rows follow this page (ask again with Offset + Limit).
	More bool `json:"more"`
	// Sources are the newest sources of the scope sets browsed (at most 100).
	Sources []SourceRow `json:"sources"`
}

// Neighbour is a memory near another in its source.
type Neighbour struct {
	ID            string     `json:"id" db:"id"`
	Kind          string     `json:"kind" db:"kind"`
	Text          string     `json:"text" db:"text"`
	Speaker       string     `json:"speaker,omitempty" db:"speaker"`
	Position      int        `json:"position" db:"position"`
	OccurredStart *time.Time `json:"occurred_start,omitempty" db:"occurred_start"`
}

// EntityRef is an entity a memory mentions (Speaker: as the one who speaks it).
type EntityRef struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Kind    string `json:"kind,omitempty"`
	Speaker bool   `json:"speaker,omitempty"`
}

// RelationRef is a relation with an end among a memory's entities.
type RelationRef struct {
	Subject   string  `json:"subject"`
	Predicate string  `json:"predicate"`
	Object    string  `json:"object"`
	Evidence  string  `json:"evidence,omitempty"` // the evidence memory's id, when visible
	Weight    float64 `json:"weight"`
	Holds     bool    `json:"holds"` // its evidence holds now (a superseded fact's does not)
}

// MemoryDetail is one memory with what surrounds it (Engine.Memory).
type MemoryDetail struct {
	MemoryRow
	OccurredEnd  *time.Time     `json:"occurred_end,omitempty"`
	SupersededAt *time.Time     `json:"superseded_at,omitempty"`
	Metadata     map[string]any `json:"metadata"`
	CreatedAt    time.Time      `json:"created_at"`
	// Neighbours are the memories of its source within three places of it, in place order,
	// itself among them.
	Neighbours []Neighbour `json:"neighbours"`
	// Entities are the entities it mentions, by name.
	Entities  []EntityRef   `json:"entities"`
	Relations []RelationRef `json:"relations"`
}

func (q *BrowseQuery) check() error {
	for _, f := range []struct{ name, v string }{{"scope", q.Scope}, {"source", q.Source}, {"kind", q.Kind}, {"tag", q.Tag}, {"text", q.Text}} {
		if len(f.v) > MaxBrowseFilter {
			return &InputError{Field: f.name, Problem: fmt.Sprintf("%d bytes, the limit is %d", len(f.v), MaxBrowseFilter)}
		}
		if !utf8.ValidString(f.v) {
			return &InputError{Field: f.name, Problem: "not valid UTF-8"}
		}
	}
	switch {
	case q.Limit < 0 || q.Limit > MaxBrowseLimit:
		return &InputError{Field: "limit", Problem: fmt.Sprintf("%d: want 1 to %d (0: %d)", q.Limit, MaxBrowseLimit, DefaultBrowseLimit)}
	case q.Offset < 0 || q.Offset > MaxBrowseOffset:
		return &InputError{Field: "offset", Problem: fmt.Sprintf("%d: want 0 to %d", q.Offset, MaxBrowseOffset)}
	case q.From != nil && q.To != nil && !q.To.After(*q.From):
		return &InputError{Field: "to", Problem: "not after from"}
	}
	if q.Limit == 0 {
		q.Limit = DefaultBrowseLimit
	}
	return nil
}

// Browse lists the user's memories matching q, newest first (a source's in place order),
// read as the user under row security in one read-only transaction, with the sources they
// may be browsed by. Bad filters get an *InputError naming the field.
func (e *Engine) Browse(ctx context.Context, user User, q BrowseQuery) (BrowseResult, error) {
	res := BrowseResult{Memories: []MemoryRow{}, Sources: []SourceRow{}}
	who, err := user.check()
	if err != nil {
		return res, err
	}
	if err := q.check(); err != nil {
		return res, err
	}
	err = pgx.BeginTxFunc(ctx, e.cfg.Pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, who.read, who.write); err != nil {
			return err
		}
		// One server reads every set at once; a Citus cluster reads each set the caller sees on
		// its shard (statement.RouteReadSets), each its first Offset + Limit + 1 rows, and the
		// page is cut from them merged in the read's order (browseSets, pageOf).
		groups, err := statement.RouteReadSets(ctx, tx, sqltext.Browse, sqltext.BrowseSources)
		if err != nil {
			return err
		}
		memories, sources, before, err := browseSets(ctx, tx, groups, q)
		if err != nil {
			return err
		}
		res.Memories, res.More, res.Sources = pageOf(memories, sources, before, q)
		return nil
	})
	if err != nil {
		return res, dberr.Interpret(ctx, "recall: browse", err)
	}
	return res, nil
}

// Memory returns the user's memories of external id id (one per scope set the user sees
// that has one; with scope, only those holding it), each with its neighbours in its source,
// the entities it mentions and the relations among them, read as the user under row
// security in one read-only transaction. None visible: an empty list, as for an id that
// does not exist (the two are not told apart).
func (e *Engine) Memory(ctx context.Context, user User, id, scopeName string) ([]MemoryDetail, error) {
	who, err := user.check()
	if err != nil {
		return nil, err
	}
	for _, f := range []struct{ name, v string }{{"id", id}, {"scope", scopeName}} {
		if len(f.v) > MaxBrowseFilter || !utf8.ValidString(f.v) {
			return nil, &InputError{Field: f.name, Problem: fmt.Sprintf("want valid UTF-8 of at most %d bytes", MaxBrowseFilter)}
		}
	}
	if id == "" {
		return nil, &InputError{Field: "id", Problem: "empty"}
	}
	out := []MemoryDetail{}
	now := e.cfg.Now()
	err = pgx.BeginTxFunc(ctx, e.cfg.Pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, who.read, who.write); err != nil {
			return err
		}
		// One group of reads on one server; on a Citus cluster one per scope set the caller
		// sees, in the order of the sets' scopes, which is the detail read's own order.
		groups, err := statement.RouteReadSets(ctx, tx, sqltext.MemoryDetail, sqltext.MemoryNeighbours, sqltext.MemoryEntities)
		if err != nil {
			return err
		}
		found, err := memoryDetails(ctx, tx, groups, id, scopeName)
		if err != nil {
			return err
		}
		for _, f := range found {
			d, neighbours, entities := f.detail, f.reads[1], f.reads[2]
			m := MemoryDetail{MemoryRow: d.MemoryRow, OccurredEnd: d.OccurredEnd, SupersededAt: d.SupersededAt, Metadata: d.Metadata,
				CreatedAt: d.CreatedAt, Neighbours: []Neighbour{}, Entities: []EntityRef{}, Relations: []RelationRef{}}
			if d.InternalSource != nil && d.Position != nil {
				rows, err := tx.Query(ctx, neighbours, pgx.StrictNamedArgs{"source": *d.InternalSource, "scopes": d.Scopes,
					"position": *d.Position, "span": NeighbourSpan})
				if err != nil {
					return err
				}
				if m.Neighbours, err = pgx.CollectRows(rows, pgx.RowToStructByName[Neighbour]); err != nil {
					return err
				}
			}
			rows, err := tx.Query(ctx, entities, pgx.StrictNamedArgs{"memory": d.InternalID, "scopes": d.Scopes,
				"now": now, "limit": MemoryRelations})
			if err != nil {
				return err
			}
			var what string
			var eid, name, kind, predicate, object, evidence *string
			var speaker, holds *bool
			var weight *float64
			_, err = pgx.ForEachRow(rows, []any{&what, &eid, &name, &kind, &speaker, &predicate, &object, &evidence, &weight, &holds}, func() error {
				if what == "entity" {
					m.Entities = append(m.Entities, EntityRef{ID: deref(eid), Name: deref(name), Kind: deref(kind), Speaker: speaker != nil && *speaker})
					return nil
				}
				m.Relations = append(m.Relations, RelationRef{Subject: deref(name), Predicate: deref(predicate), Object: deref(object),
					Evidence: deref(evidence), Weight: *weight, Holds: holds != nil && *holds})
				return nil
			})
			if err != nil {
				return err
			}
			// By name (then id): the same order on every server, whatever plan read them.
			slices.SortFunc(m.Entities, func(a, b EntityRef) int {
				return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
			})
			out = append(out, m)
		}
		return nil
	})
	if err != nil {
		return nil, dberr.Interpret(ctx, "recall: memory", err)
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Package write is recall's write path: transactional batches of sources, memories,
// entities and relations under a caller's write scopes, with the memories embedded, entity
// names extracted from their texts and linked, co-mentions related, and deletes. The root
// package's Engine.Write and Engine.Delete call it; it never imports the root.
package write

import (
	"fmt"
	"time"
)

// Batch is one transactional write: everything in it lands, or nothing does. Rows are
// addressed by external id within the batch's scope set; writing an id again updates it.
// It is the body of POST /v1/memories; the fields without a JSON name are Go's alone.
type Batch struct {
	// Scopes is the scope set every row of the batch belongs to; each must be one of the
	// user's write scopes (nil: the user's only write scope).
	Scopes    []string   `json:"scopes,omitempty"`
	Sources   []Source   `json:"sources,omitempty"`
	Memories  []Memory   `json:"memories,omitempty"`
	Entities  []Entity   `json:"entities,omitempty"`
	Relations []Relation `json:"relations,omitempty"`
	// NoExtract turns off entity extraction from memory texts for this batch.
	NoExtract bool `json:"no_extract,omitempty"`
	// ExactEntityLinks links extracted names to existing entities by exact name or alias
	// only, skipping the trigram match (which costs milliseconds per new multi-word name: a
	// bulk load of entity-dense text may prefer to skip it).
	ExactEntityLinks bool `json:"exact_entity_links,omitempty"`
	// DeferVectorIndex leaves the vector index of the embedder's dimension uncreated when it
	// does not exist yet: a bulk load then calls EnsureVectorIndex once at the end, which
	// builds it far faster than inserting row by row. Until then the vector lane scans. Go
	// only: a client over HTTP has no call to build the index afterwards.
	DeferVectorIndex bool `json:"-"`
	// Prune, when set, deletes in the same transaction the memories of the batch's scope set
	// whose ID starts with it and that the batch does not write: a rebuilt set of memories
	// (recall summarize's summaries) replaces the last one whole. It must be at least
	// MinPruneLen bytes, so that it names a family of ids, not everything. Go only.
	Prune string `json:"-"`
	// Duplicates is what becomes of a memory without a place (a note, a fact) that restates
	// one of the scope set, stored or earlier in the batch: the same text once lowered and
	// with its punctuation and spacing ignored, the same kind and speaker. "keep" (or ""):
	// stored as any other; "skip": not stored, and the batch's references to it (relations,
	// supersedes, covers) go to the one it restates, which counts the restatement and names
	// its source in its metadata ("restatements", "restated_in"); "link": stored, marked as a duplicate of
	// that one, and never recalled (the one it restates is). Result.Duplicates counts them. A
	// turn of a conversation (a memory with a place) is never a duplicate.
	Duplicates string `json:"duplicates,omitempty"`
	// DuplicateMatch is how Duplicates tells that a memory restates another: "text" (or
	// ""): the same text once lowered and with its punctuation and spacing ignored; "words":
	// near-identical, the same words in the same order once contractions are written out and
	// articles and fillers (a, an, the, just, really, very, ...) set aside, so "The user
	// likes pizza." restates "user likes pizza" but "I don't like it" does not restate "I like
	// it", nor "Ana lived in Lisbon" "Ana lives in Lisbon" (migration 00013 says the rule).
	DuplicateMatch string `json:"duplicate_match,omitempty"`
	// AsExported restores rows an export wrote (recall export; package records reads its
	// header): each memory's Entities are its stored mentions and the batch's Relations the
	// stored relations, so nothing is extracted from the texts and no co-mention is derived,
	// and entities may keep the engine's "auto:" ids. Go only: the ingest path sets it.
	AsExported bool `json:"-"`
}

// MinPruneLen is the shortest Batch.Prune prefix.
const MinPruneLen = 4

// Source is a document memories come from. Its JSON names are the wire's: HTTP bodies and
// native JSONL records (package records) decode into it.
type Source struct {
	ID         string         `json:"id"`
	Title      string         `json:"title,omitempty"`
	URI        string         `json:"uri,omitempty"`
	OccurredAt *time.Time     `json:"occurred_at,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// Memory is one recallable unit.
type Memory struct {
	ID     string `json:"id"`
	Source string `json:"source,omitempty"` // a source's ID, in this batch or already stored
	Kind   string `json:"kind,omitempty"`   // world (default), experience, observation, summary
	Text   string `json:"text"`
	// Embedding, when set, is stored as is and must have the engine embedder's dimension;
	// otherwise the engine embeds Text.
	Embedding     []float32  `json:"embedding,omitempty"`
	OccurredStart *time.Time `json:"occurred_start,omitempty"`
	OccurredEnd   *time.Time `json:"occurred_end,omitempty"`
	// MentionedAt is when the memory was said or written down, when that differs from
	// when what it tells happened.
	MentionedAt *time.Time `json:"mentioned_at,omitempty"`
	// RefersStart and RefersEnd are the span [start, end) the text refers to: "I went to a
	// support group yesterday", said on 8 May 2023, refers to 7 May. Left unset (both), the
	// writer reads the first time expression of Text relative to MentionedAt, else
	// OccurredStart (package when: dates, months, years, "yesterday", "last week", "two
	// months ago", ...); a memory without either time refers to none. The temporal lane
	// matches a question's window against this span as well as the occurred one.
	RefersStart *time.Time `json:"refers_start,omitempty"`
	RefersEnd   *time.Time `json:"refers_end,omitempty"`
	// ExpiresAt is when the memory stops being true or useful: from then on recall leaves it
	// out (it is never packed, nor brought as a neighbour), and Engine.Prune (`recall prune`)
	// deletes it, with the summaries that cover it.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// ValidFrom and ValidUntil bound when what the memory says holds ([from, until); either
	// may be unset): a recall as of a time outside them leaves it out (Options.AsOf).
	ValidFrom  *time.Time `json:"valid_from,omitempty"`
	ValidUntil *time.Time `json:"valid_until,omitempty"`
	// Supersedes are the IDs of memories of the batch's scope set (in this batch or stored)
	// that this one replaces ("moved to Berlin" superseding "lives in Lisbon"): from this
	// memory's ValidFrom (else its OccurredStart, else the time of the write) they no longer
	// hold, and a recall as of a later time leaves them out. Deleting this memory makes them
	// hold again.
	Supersedes []string `json:"supersedes,omitempty"`
	// SupersedesAt, when set, is when the memories it supersedes stopped holding, in place
	// of its ValidFrom, else OccurredStart, else the time of the write (an export keeps the
	// time each supersession was made).
	SupersedesAt *time.Time `json:"supersedes_at,omitempty"`
	// DuplicateOf is the ID of a memory of the batch's scope set (in this batch or stored)
	// this one restates: it is stored, marked as that one's duplicate and never recalled, as
	// Batch.Duplicates "link" marks one (an export keeps the mark).
	DuplicateOf string         `json:"duplicate_of,omitempty"`
	Tags        []string       `json:"tags,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	// Speaker, when set, is who said the memory (a conversation turn's speaker): a person
	// entity, linked as the memory's speaker, not as a name it mentions. A leading
	// "Speaker: " in Text is the speaker's, not a mention either.
	Speaker string `json:"speaker,omitempty"`
	// Position is the memory's place in its source, from 1 (a session's turn, a document's
	// chunk); 0: none. Memories of the same source and scope set one place apart are
	// neighbours: the context lane scores a memory with its neighbours' words, and a pack
	// shows a hit with the neighbour it needs. It needs Source.
	Position int `json:"position,omitempty"`
	// Entities are entity IDs (in this batch or stored) the memory mentions, besides those
	// extracted from Text.
	Entities []string `json:"entities,omitempty"`
	// Covers, for a summary (Kind "summary"), are the IDs of the memories it summarizes, of
	// the batch's scope set (in this batch or stored). A pack never holds a summary with a
	// memory it covers, and deleting a covered memory deletes the summary. Writing the
	// summary again replaces its coverage.
	Covers []string `json:"covers,omitempty"`
}

// Entity is a person, place or thing memories mention.
type Entity struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Kind    string   `json:"kind,omitempty"`
	Aliases []string `json:"aliases,omitempty"`
	// BlockedAliases are words of a person's name never to be derived as its aliases. A
	// person ("person" kind) of several words gets each word as an alias while no other
	// person of its scope set has it (a first name, a surname).
	BlockedAliases []string       `json:"blocked_aliases,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
}

// Relation is an edge of the entity graph.
type Relation struct {
	From      string  `json:"from"`                // an entity ID
	To        string  `json:"to"`                  // an entity ID
	Predicate string  `json:"predicate,omitempty"` // default DefaultPredicate
	Weight    float64 `json:"weight,omitempty"`    // default 1
	Memory    string  `json:"memory,omitempty"`    // optional: the memory this relation comes from
}

// Result counts what a batch wrote.
type Result struct {
	Sources    int `json:"sources"`   // rows inserted or updated
	Memories   int `json:"memories"`  // rows inserted or updated
	Entities   int `json:"entities"`  // rows inserted or updated
	Updated    int `json:"updated"`   // memories that existed before
	Extracted  int `json:"extracted"` // entities created from extracted names
	Mentions   int `json:"mentions"`
	Relations  int `json:"relations"`
	Covered    int `json:"covered"`    // (summary, covered memory) pairs written
	Superseded int `json:"superseded"` // memories marked superseded (Memory.Supersedes)
	Pruned     int `json:"pruned"`     // memories deleted by Batch.Prune
	Duplicates int `json:"duplicates"` // memories skipped or linked as duplicates (Batch.Duplicates)
}

// Add adds o's counts to r.
func (r *Result) Add(o Result) {
	r.Sources += o.Sources
	r.Memories += o.Memories
	r.Entities += o.Entities
	r.Updated += o.Updated
	r.Extracted += o.Extracted
	r.Mentions += o.Mentions
	r.Relations += o.Relations
	r.Covered += o.Covered
	r.Duplicates += o.Duplicates
	r.Superseded += o.Superseded
	r.Pruned += o.Pruned
}

// Error is a batch refused before anything was written: Item names the row
// ("memories[3]"), Field the field, Problem what is wrong.
type Error struct {
	Item    string
	Field   string
	Problem string
}

func (e *Error) Error() string {
	return fmt.Sprintf("recall: write: %s.%s: %s", e.Item, e.Field, e.Problem)
}

// DefaultPredicate is a relation's predicate when it names none.
const DefaultPredicate = "related_to"

// CoMentionWindow is how many of the entities named after one in a memory it is related to
// (co_mentioned): neighbours in order of appearance.
const CoMentionWindow = 3

// Limits of the write path: the schema's checks, and what its indexes can hold (a btree or
// GIN entry is at most about 2.7 kB, so anything indexed is bounded well below that).
const (
	MaxIDLen        = 512
	MaxTextLen      = 1_000_000
	MaxNameLen      = 512 // an entity's name, an alias
	MaxSpeakerLen   = 256 // a speaker becomes an entity whose id is "auto:" and the lowered name
	MaxTitleLen     = 1000
	MaxURILen       = 8192
	MaxTagLen       = 256
	MaxPredicateLen = 256
	MaxKindLen      = 64     // an entity's kind
	MaxMetaDepth    = 32     // nesting of metadata values
	MaxCovers       = 10_000 // memories one summary covers
	// MaxScopeSetBytes bounds a stored scope set (a batch's): its names joined by commas.
	// Every lexical posting's index entry holds the set twice (its key and the array) next
	// to a term, and an entry is at most about 2.7 kB. Read scopes are not stored and are
	// bounded only by scope.MaxScopes names of scope.MaxNameLen bytes.
	MaxScopeSetBytes = 512
)

var kinds = []string{"world", "experience", "observation", "summary"}

package write

import (
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/scope"
)

// nameSimilarity is the least pg_trgm similarity at which an extracted name of several words
// is an entity of another name (pg_trgm.similarity_threshold in a write's transaction).
const nameSimilarity = 0.8

// An occurrence is a name extracted from a batch's memory mem (lowered: key); a strong name
// may become a new entity, a weak one only links to an entity there is.
type occurrence struct {
	mem       int
	name, key string
	strong    bool
}

// near is an entity a name matches by trigrams, and how similar their names are.
type near struct {
	id  int64
	sim float64
}

// resolveNames links each extracted name, in the order the batch's memories name them, as
// writing the memories one at a time would, so that where a stream of memories is cut into
// batches changes no link (TestBatchSizesWriteTheSameRows): to the entity whose name or alias
// it is; else, fuzzy and for a name of several words, to the entity whose name is most
// similar by trigrams (at least pg_trgm.similarity_threshold), among the stored ones and
// those earlier names of the batch created (on a tie the stored one, then the earlier: the
// lower id, as sql/write/resolve_fuzzy.sql orders stored ones); else, for a strong name, to
// a new entity ("auto:" + the key); else to none (0). The database is asked three times
// whatever the batch: the names' exact entities, their nearest stored ones, and which of the
// batch's names are near each other.
func (t *txn) resolveNames(occ []occurrence, fuzzy bool) ([]int64, error) {
	var keys []string
	first := map[string]string{} // key -> the name as first written
	for _, o := range occ {
		if _, ok := first[o.key]; !ok {
			first[o.key] = o.name
			keys = append(keys, o.key)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	exact, err := t.exact(keys)
	if err != nil {
		return nil, err
	}
	stored, similar := map[string]near{}, map[string]map[string]float64{}
	if fuzzy {
		l := loose(keys, exact)
		if stored, err = t.nearStored(l); err != nil {
			return nil, err
		}
		if similar, err = t.nearInBatch(l, unknown(keys, exact)); err != nil {
			return nil, err
		}
	}
	// refs: a stored entity's id, or -(n+1) for the n-th entity the batch creates.
	refs := make([]int64, len(occ))
	created := map[string]int{}
	var creates []string
	for i, o := range occ {
		if id, ok := exact[o.key]; ok {
			refs[i] = id
			continue
		}
		if n, ok := created[o.key]; ok {
			refs[i] = -int64(n + 1)
			continue
		}
		best, ok := stored[o.key]
		for other, sim := range similar[o.key] {
			n, made := created[other]
			if !made {
				continue
			}
			// Higher similarity wins; on a tie the stored entity, then the earlier created.
			if !ok || sim > best.sim || sim == best.sim && best.id < 0 && -int64(n+1) > best.id {
				best, ok = near{id: -int64(n + 1), sim: sim}, true
			}
		}
		switch {
		case ok:
			refs[i] = best.id
		case o.strong:
			created[o.key] = len(creates)
			creates = append(creates, o.key)
			refs[i] = -int64(len(creates))
		}
	}
	ids, err := t.create(creates, first)
	if err != nil {
		return nil, err
	}
	for i, r := range refs {
		if r < 0 {
			refs[i] = ids[-r-1]
		}
	}
	return refs, nil
}

// create inserts the batch's new extracted entities, in order (so their ids follow the order
// the batch named them), and returns their ids in that order.
func (t *txn) create(keys []string, names map[string]string) ([]int64, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	rows := make([]map[string]any, len(keys))
	for i, k := range keys {
		rows[i] = map[string]any{"id": "auto:" + k, "name": names[k], "kind": ""}
	}
	got, err := t.rows(statementText("entities_keep"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{rows}})
	if err != nil {
		return nil, err
	}
	t.res.Extracted += len(got)
	out := make([]int64, len(keys))
	for i, k := range keys {
		out[i] = got["auto:"+k]
	}
	return out, nil
}

// exact maps each key to the stored entity of the batch's scope set whose name or alias it
// is (sql/write/resolve.sql).
func (t *txn) exact(keys []string) (map[string]int64, error) {
	return t.rows(statementText("resolve"), pgx.NamedArgs{"names": keys, "scopes": t.scopes})
}

// loose are the keys of several words without an exact entity: the ones matched by trigrams.
// A short single token (an acronym, a gene) shares trigrams with too many names.
func loose(keys []string, exact map[string]int64) []string {
	return slices.DeleteFunc(unknown(keys, exact), func(k string) bool { return !strings.Contains(k, " ") })
}

// nearStored maps each name to its most similar stored entity (sql/write/resolve_fuzzy.sql).
func (t *txn) nearStored(names []string) (map[string]near, error) {
	out := map[string]near{}
	if len(names) == 0 {
		return out, nil
	}
	stmt := "resolve_fuzzy"
	if scope.Citus(t.tx) {
		stmt = "resolve_fuzzy_plain" // sql/write/entity_resolve.sql says why
	}
	rows, err := t.tx.Query(t.ctx, statementText(stmt), pgx.NamedArgs{"names": names, "scopes": t.scopes})
	if err != nil {
		return nil, err
	}
	var name string
	var n near
	_, err = pgx.ForEachRow(rows, []any{&name, &n.id, &n.sim}, func() error {
		out[name] = n
		return nil
	})
	return out, err
}

// unknown are the keys without an exact entity: the ones the batch may create.
func unknown(keys []string, exact map[string]int64) []string {
	var out []string
	for _, k := range keys {
		if _, ok := exact[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// nearInBatch gives, for each of names, the others (keys the batch may create entities of)
// at least pg_trgm.similarity_threshold similar to it, with their similarity: the pairs
// trigramPairs finds, measured by pg_trgm (sql/write/resolve_batch.sql).
func (t *txn) nearInBatch(names, others []string) (map[string]map[string]float64, error) {
	out := map[string]map[string]float64{}
	as, bs := trigramPairs(names, others, nameSimilarity-0.1)
	if len(as) == 0 {
		return out, nil
	}
	rows, err := t.tx.Query(t.ctx, statementText("resolve_batch"), pgx.NamedArgs{"a": as, "b": bs})
	if err != nil {
		return nil, err
	}
	var a, b string
	var sim float64
	_, err = pgx.ForEachRow(rows, []any{&a, &b, &sim}, func() error {
		if out[a] == nil {
			out[a] = map[string]float64{}
		}
		out[a][b] = sim
		return nil
	})
	return out, err
}

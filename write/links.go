package write

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/extract"
)

// writeLinks writes the mentions (given entities, speakers and extracted names) and the
// relations (co-mentions and the batch's own).
func (t *txn) writeLinks(b Batch, _ [][]float32) error {
	mentioned, err := t.mentioned(b)
	if err != nil {
		return err
	}
	// Relation ends may name entities stored, given, or just extracted ("auto:..." ids).
	refs := map[string]string{}
	for i, r := range b.Relations {
		for _, end := range [][2]string{{"from", r.From}, {"to", r.To}} {
			if _, ok := t.entities[end[1]]; !ok {
				refs[end[1]] = fmt.Sprintf("relations[%d].%s", i, end[0])
			}
		}
	}
	more, err := t.stored("entities", refs)
	if err != nil {
		return err
	}
	for k, v := range more {
		t.entities[k] = v
	}
	mentionRows, relationRows := t.mentionRows(b, mentioned)
	given, err := t.relationRows(b)
	if err != nil {
		return err
	}
	relationRows = append(relationRows, given...)
	if len(mentionRows) > 0 {
		tag, err := t.tx.Exec(t.ctx, statementText("mentions"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonArg(mentionRows)})
		if err != nil {
			return err
		}
		t.res.Mentions = int(tag.RowsAffected())
	}
	if len(relationRows) > 0 {
		tag, err := t.tx.Exec(t.ctx, statementText("relations"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonArg(relationRows)})
		if err != nil {
			return err
		}
		t.res.Relations = int(tag.RowsAffected())
	}
	return nil
}

// mentioned returns, per memory, the entity ids it mentions in order of appearance (with
// repeats): the entities it lists, then its speaker and the names extracted from its text.
func (t *txn) mentioned(b Batch) ([][]int64, error) {
	refs := map[string]string{}
	for i, m := range b.Memories {
		for j, id := range m.Entities {
			if _, ok := t.entities[id]; !ok {
				refs[id] = fmt.Sprintf("memories[%d].entities[%d]", i, j)
			}
		}
	}
	more, err := t.stored("entities", refs)
	if err != nil {
		return nil, err
	}
	for k, v := range more {
		t.entities[k] = v
	}
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
			mentioned[i] = append(mentioned[i], t.entities[id])
		}
	}
	if len(names) == 0 {
		return mentioned, nil
	}
	byName, err := t.resolve(names, create, speakers(b.Memories), !b.ExactEntityLinks)
	if err != nil {
		return nil, err
	}
	for i := range b.Memories {
		for _, k := range memNames[i] {
			if id, ok := byName[k]; ok { // weak names without an entity stay unlinked
				mentioned[i] = append(mentioned[i], id)
			}
		}
	}
	return mentioned, nil
}

// mentionRows returns each memory's mentions (each entity once) and its co-mention relations:
// an entity with the next CoMentionWindow in order of appearance, so a memory naming thirty
// entities relates neighbours, not all 435 pairs.
func (t *txn) mentionRows(b Batch, mentioned [][]int64) (mentions, relations []map[string]any) {
	for i, m := range b.Memories {
		var ents []int64
		seen := map[int64]bool{}
		for _, id := range mentioned[i] {
			if !seen[id] {
				seen[id] = true
				ents = append(ents, id)
			}
		}
		mid := t.memories[m.ID]
		pairs := map[[2]int64]bool{}
		for j, a := range ents {
			mentions = append(mentions, map[string]any{"m": mid, "e": a})
			for _, c := range ents[j+1 : min(len(ents), j+1+CoMentionWindow)] {
				pair := [2]int64{min(a, c), max(a, c)}
				if !pairs[pair] {
					pairs[pair] = true
					relations = append(relations, map[string]any{"src": pair[0], "dst": pair[1], "predicate": "co_mentioned", "weight": 1.0, "memory": mid})
				}
			}
		}
	}
	return mentions, relations
}

// relationRows returns the batch's own relations, their evidence memory found in the batch or
// stored.
func (t *txn) relationRows(b Batch) ([]map[string]any, error) {
	var out []map[string]any
	for i, r := range b.Relations {
		predicate := r.Predicate
		if predicate == "" {
			predicate = "related_to"
		}
		rel := map[string]any{"src": t.entities[r.From], "dst": t.entities[r.To], "predicate": predicate, "weight": r.Weight, "memory": nil}
		if r.Weight == 0 {
			rel["weight"] = 1.0
		}
		if r.Memory != "" {
			mid, ok := t.memories[r.Memory]
			if !ok {
				got, err := t.stored("memories", map[string]string{r.Memory: fmt.Sprintf("relations[%d].memory", i)})
				if err != nil {
					return nil, err
				}
				mid = got[r.Memory]
			}
			rel["memory"] = mid
		}
		out = append(out, rel)
	}
	return out, nil
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
func (t *txn) resolve(names map[string]string, create, persons map[string]bool, fuzzy bool) (map[string]int64, error) {
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rows, err := t.tx.Query(t.ctx, statementText("resolve"), pgx.NamedArgs{"names": keys, "scopes": t.scopes})
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
		rows, err := t.tx.Query(t.ctx, statementText("resolve_fuzzy"), pgx.NamedArgs{"names": loose, "scopes": t.scopes})
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
		got, err := t.rows(statementText("entities"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonArg(rowsNew), "keep_existing": true})
		if err != nil {
			return nil, err
		}
		for ext, id := range got {
			out[strings.TrimPrefix(ext, "auto:")] = id
		}
		t.res.Extracted += len(got)
	}
	return out, nil
}

package write

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/extract"
)

// writeLinks writes the mentions (given entities, extracted names and speakers) and the
// relations (co-mentions and the batch's own).
func (t *txn) writeLinks(b Batch) error {
	named, speakers, err := t.mentioned(b)
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
	mentionRows, relationRows := t.mentionRows(b, named, speakers)
	given, err := t.relationRows(b)
	if err != nil {
		return err
	}
	relationRows = append(relationRows, given...)
	if len(mentionRows) > 0 {
		tag, err := t.tx.Exec(t.ctx, statementText("mentions"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{mentionRows}})
		if err != nil {
			return err
		}
		t.res.Mentions = int(tag.RowsAffected())
	}
	if len(relationRows) > 0 {
		tag, err := t.tx.Exec(t.ctx, statementText("relations"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{relationRows}})
		if err != nil {
			return err
		}
		t.res.Relations = int(tag.RowsAffected())
		if len(t.functional) > 0 {
			tag, err := t.tx.Exec(t.ctx, statementText("functional"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{relationRows}, "functional": t.functional, "now": t.now})
			if err != nil {
				return err
			}
			t.res.Superseded += int(tag.RowsAffected())
		}
	}
	return nil
}

// mentioned returns, per memory, the entity ids it names in order of appearance (with
// repeats: the entities it lists, then the names extracted from its text) and its speaker's
// entity (0: none). Speakers are linked first, as persons, and the persons' aliases derived,
// so a first name in a text links to its person.
func (t *txn) mentioned(b Batch) (named [][]int64, speakers []int64, err error) {
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
		return nil, nil, err
	}
	for k, v := range more {
		t.entities[k] = v
	}
	speakers = make([]int64, len(b.Memories))
	bySpeaker := map[string]string{}
	for _, m := range b.Memories {
		if sp := strings.TrimSpace(m.Speaker); sp != "" {
			bySpeaker[strings.ToLower(sp)] = sp
		}
	}
	if len(bySpeaker) > 0 {
		all := map[string]bool{}
		for k := range bySpeaker {
			all[k] = true
		}
		ids, err := t.resolve(bySpeaker, all, all, !b.ExactEntityLinks)
		if err != nil {
			return nil, nil, err
		}
		for i, m := range b.Memories {
			speakers[i] = ids[strings.ToLower(strings.TrimSpace(m.Speaker))]
		}
		list := make([]int64, 0, len(ids))
		for _, id := range ids {
			list = append(list, id)
		}
		if _, err := t.tx.Exec(t.ctx, statementText("speakers"), pgx.NamedArgs{"scopes": t.scopes, "ids": list, "now": t.now}); err != nil {
			return nil, nil, err
		}
	}
	if len(bySpeaker) > 0 || hasPerson(b.Entities) {
		if _, err := t.tx.Exec(t.ctx, statementText("aliases"), pgx.NamedArgs{"scopes": t.scopes}); err != nil {
			return nil, nil, err
		}
	}
	named = make([][]int64, len(b.Memories))
	var occ []occurrence
	for i, m := range b.Memories {
		for _, id := range m.Entities {
			named[i] = append(named[i], t.entities[id])
		}
		if !b.NoExtract && !b.AsExported {
			strong, weak := extract.Find(withoutSpeaker(m.Text, m.Speaker))
			for j, n := range append(strong, weak...) {
				occ = append(occ, occurrence{mem: i, name: n, key: strings.ToLower(n), strong: j < len(strong)})
			}
		}
	}
	ids, err := t.resolveNames(occ, !b.ExactEntityLinks)
	if err != nil {
		return nil, nil, err
	}
	for i, o := range occ {
		if ids[i] != 0 { // weak names without an entity stay unlinked
			named[o.mem] = append(named[o.mem], ids[i])
		}
	}
	return named, speakers, nil
}

func hasPerson(es []Entity) bool {
	for _, e := range es {
		if e.Kind == "person" {
			return true
		}
	}
	return false
}

// withoutSpeaker returns text without a leading "Speaker: " (its speaker's name, or the
// name's first word), which says who speaks, not whom the text names.
func withoutSpeaker(text, speaker string) string {
	speaker = strings.TrimSpace(speaker)
	head, rest, ok := strings.Cut(text, ":")
	if !ok || speaker == "" || len(head) > len(speaker)+2 {
		return text
	}
	head = strings.TrimSpace(head)
	first, _, _ := strings.Cut(speaker, " ")
	if strings.EqualFold(head, speaker) || strings.EqualFold(head, first) {
		return rest
	}
	return text
}

// mentionRows returns each memory's mentions (each entity once, its speaker marked) and its
// co-mention relations: a named entity with the next CoMentionWindow named after it, so a
// memory naming thirty entities relates neighbours, not all 435 pairs. A speaker is not
// related to what it says: that would make every speaker a hub of its conversation. A
// restored export (Batch.AsExported) derives none: its relations are the stored ones.
func (t *txn) mentionRows(b Batch, named [][]int64, speakers []int64) (mentions, relations []map[string]any) {
	for i, m := range b.Memories {
		var ents []int64
		seen := map[int64]bool{}
		for _, id := range named[i] {
			if !seen[id] {
				seen[id] = true
				ents = append(ents, id)
			}
		}
		mid := t.memories[m.ID]
		if sp := speakers[i]; sp != 0 && !seen[sp] {
			mentions = append(mentions, map[string]any{"m": mid, "e": sp, "s": true})
		}
		pairs := map[[2]int64]bool{}
		for j, a := range ents {
			mentions = append(mentions, map[string]any{"m": mid, "e": a, "s": false})
			if b.AsExported { // the export's relations are the stored ones, co-mentions included
				continue
			}
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
	// The evidence memories the batch does not write, looked up at once.
	refs := map[string]string{}
	for i, r := range b.Relations {
		if _, ok := t.memories[r.Memory]; r.Memory != "" && !ok {
			if _, seen := refs[r.Memory]; !seen {
				refs[r.Memory] = fmt.Sprintf("relations[%d].memory", i)
			}
		}
	}
	stored, err := t.stored("memories", refs)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, r := range b.Relations {
		predicate := r.Predicate
		if predicate == "" {
			predicate = DefaultPredicate
		}
		rel := map[string]any{"src": t.entities[r.From], "dst": t.entities[r.To], "predicate": predicate, "weight": r.Weight, "memory": nil}
		if r.Weight == 0 {
			rel["weight"] = 1.0
		}
		if r.Memory != "" {
			mid, ok := t.memories[r.Memory]
			if !ok {
				mid = stored[r.Memory]
			}
			rel["memory"] = mid
		}
		out = append(out, rel)
	}
	return out, nil
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
	out, err := t.exact(keys)
	if err != nil {
		return nil, err
	}
	if fuzzy {
		near, err := t.nearStored(loose(keys, out))
		if err != nil {
			return nil, err
		}
		for k, n := range near {
			out[k] = n.id
		}
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
		got, err := t.rows(statementText("entities_keep"), pgx.NamedArgs{"scopes": t.scopes, "rows": jsonRows{rowsNew}})
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

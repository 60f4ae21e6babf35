package eval

import (
	"fmt"
	"maps"
	"slices"
)

// SetField is the metadata field Mix writes on every document and query: the name of the
// data set it comes from.
const SetField = "set"

// Slices spreads the documents of d over scopes, for mixing into another data set's scopes:
// the documents judged for one query, and those linked through queries that share a
// document, go to one scope (so a query can find all its evidence there), groups in turn by
// their first query in Judged order; the documents no query judges go in turn by corpus
// order. It returns each document's scope and each judged query's.
func Slices(d *Dataset, scopes []string) (docs, queries map[string]string) {
	docs, queries = map[string]string{}, map[string]string{}
	if len(scopes) == 0 {
		return docs, queries
	}
	// Union-find over documents, joined through the queries that judge them.
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if parent[x] == "" || parent[x] == x {
			parent[x] = x
			return x
		}
		parent[x] = find(parent[x])
		return parent[x]
	}
	judged := d.Judged()
	for _, q := range judged {
		ids := slices.Sorted(maps.Keys(d.Qrels[q.ID]))
		for _, id := range ids[1:] {
			parent[find(id)] = find(ids[0])
		}
	}
	next := 0
	group := map[string]string{} // a group's root -> its scope
	for _, q := range judged {
		ids := slices.Sorted(maps.Keys(d.Qrels[q.ID]))
		if len(ids) == 0 {
			continue
		}
		root := find(ids[0])
		if _, ok := group[root]; !ok {
			group[root] = scopes[next%len(scopes)]
			next++
		}
		queries[q.ID] = group[root]
	}
	next = 0
	for _, doc := range d.Corpus {
		if sc, ok := group[find(doc.ID)]; ok {
			docs[doc.ID] = sc
			continue
		}
		docs[doc.ID] = scopes[next%len(scopes)]
		next++
	}
	return docs, queries
}

// Spread returns b with its documents and judged queries spread over scopes (Slices): each
// carries its scope (scopeField) and the set's name (SetField), and loses the metadata fields
// given (another set's mapping reads them: speakers, times, sessions b does not have).
func Spread(b *Dataset, name, scopeField string, scopes []string, fields []string) *Dataset {
	out := &Dataset{Queries: map[string]string{}, QueryMeta: map[string]map[string]any{}, Qrels: map[string]Qrels{}}
	docScope, queryScope := Slices(b, scopes)
	strip := func(meta map[string]any, sc string) map[string]any {
		m := withFields(meta, map[string]any{SetField: name, scopeField: sc})
		for _, f := range fields {
			if f != scopeField {
				delete(m, f)
			}
		}
		return m
	}
	for _, doc := range b.Corpus {
		doc.Metadata = strip(doc.Metadata, docScope[doc.ID])
		out.Corpus = append(out.Corpus, doc)
	}
	for id, sc := range queryScope {
		out.Queries[id], out.QueryMeta[id], out.Qrels[id] = b.Queries[id], strip(b.QueryMeta[id], sc), b.Qrels[id]
	}
	return out
}

// Mix returns one data set holding a's documents and queries, and b's spread over the scopes
// a's documents are in (Spread): every document and query carries its set's name
// (SetField), and a query keeps its own set's judgments. aScope reads a document's scope;
// fields are the metadata fields a's mapping reads, which b's records lose. Document and
// query ids of the two sets must differ.
func Mix(a, b *Dataset, aName, bName, scopeField string, fields []string, aScope func(map[string]any) (string, error)) (*Dataset, error) {
	out := &Dataset{Queries: map[string]string{}, QueryMeta: map[string]map[string]any{}, Qrels: map[string]Qrels{}}
	seen := map[string]bool{}
	var scopes []string
	for _, doc := range a.Corpus {
		sc, err := aScope(doc.Metadata)
		if err != nil {
			return nil, fmt.Errorf("%s document %s: %w", aName, doc.ID, err)
		}
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
		doc.Metadata = withFields(doc.Metadata, map[string]any{SetField: aName})
		out.Corpus = append(out.Corpus, doc)
		seen[doc.ID] = true
	}
	slices.Sort(scopes)
	for id, text := range a.Queries {
		out.Queries[id] = text
		out.QueryMeta[id] = withFields(a.QueryMeta[id], map[string]any{SetField: aName})
	}
	maps.Copy(out.Qrels, a.Qrels)
	spread := Spread(b, bName, scopeField, scopes, fields)
	for _, doc := range spread.Corpus {
		if seen[doc.ID] {
			return nil, fmt.Errorf("document id %s is in both %s and %s", doc.ID, aName, bName)
		}
		out.Corpus = append(out.Corpus, doc)
	}
	for id := range spread.Queries {
		if _, ok := out.Queries[id]; ok {
			return nil, fmt.Errorf("query id %s is in both %s and %s", id, aName, bName)
		}
		out.Queries[id], out.QueryMeta[id], out.Qrels[id] = spread.Queries[id], spread.QueryMeta[id], spread.Qrels[id]
	}
	return out, nil
}

// withFields returns a copy of meta with the fields set.
func withFields(meta map[string]any, set map[string]any) map[string]any {
	out := make(map[string]any, len(meta)+len(set))
	maps.Copy(out, meta)
	maps.Copy(out, set)
	return out
}

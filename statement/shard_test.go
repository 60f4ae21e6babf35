package statement

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestShardSQL: the shard form names every distributed table by the placement's shard, leaves
// functions of schema recall alone, calls the probes' shard forms, and refuses a placement
// that lacks a table's shard.
func TestShardSQL(t *testing.T) {
	st, err := Build(Shape{Dim: 8, Fuzzy: true, Plan: Maximal})
	if err != nil {
		t.Fatal(err)
	}
	p := Placement{Host: "w", Port: 1, Shards: map[string]string{}}
	for _, table := range strings.Split(distributed, "|") {
		p.Shards[table] = "recall." + table + "_4242"
	}
	text, err := st.ShardSQL([]string{"a"}, p)
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`\brecall\.(` + distributed + `)\b[^(_]`).FindString(text); m != "" {
		t.Fatalf("the shard form still reads %q", m)
	}
	for _, want := range []string{"recall.memories_4242", "recall.bm25_postings_4242", "recall.probe_titles_shard(", "recall.probe_entities_shard(", "recall.scope_key("} {
		if !strings.Contains(text, want) {
			t.Errorf("the shard form lacks %q", want)
		}
	}
	if strings.Contains(text, "_routed(") {
		t.Error("the shard form calls a routed probe")
	}
	// A scope named like a table stays as it is in the set's literal; the text is the routed
	// one with every table read (not a function call) replaced by a regexp, worked out here.
	odd := []string{`team "recall.memories"`}
	text, err = st.ShardSQL(odd, p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, arrayLiteral(odd)) {
		t.Errorf("the shard form changed the set's literal %s", arrayLiteral(odd))
	}
	ref, err := st.Routed([]string{"@@set@@"})
	if err != nil {
		t.Fatal(err)
	}
	ref = regexp.MustCompile(`\brecall\.(`+distributed+`)\b(\s*\()?`).ReplaceAllStringFunc(ref, func(m string) string {
		if strings.HasSuffix(m, "(") {
			return m
		}
		return m + "_4242"
	})
	ref = strings.NewReplacer("recall.probe_titles_routed(", "recall.probe_titles_shard(", "recall.probe_entities_routed(", "recall.probe_entities_shard(").Replace(ref)
	ref = strings.ReplaceAll(ref, arrayLiteral([]string{"@@set@@"}), arrayLiteral(odd))
	if text != ref {
		t.Error("the shard form differs from the reference rewrite")
	}
	delete(p.Shards, "mentions")
	if _, err := st.ShardSQL([]string{"a"}, p); err == nil || !strings.Contains(err.Error(), "recall.mentions") {
		t.Fatalf("a placement without the mentions shard: %v", err)
	}
}

// TestShardSQLSets: the shard form of two sets on one worker reads each table as the union of
// the sets' distinct shards bound to both sets, calls every probe once per set, and writes a
// scope named like a table's read or a probe's call into its literal unchanged.
func TestShardSQLSets(t *testing.T) {
	st, err := Build(Shape{Dim: 8, Fuzzy: true, Plan: Maximal})
	if err != nil {
		t.Fatal(err)
	}
	odd := [][]string{{"x recall.probe_titles_routed(@route::text[], a) p"}, {"(SELECT * FROM recall.memories WHERE scopes = @route::text[])"}}
	places := make([]Placement, 2)
	for i := range places {
		places[i] = Placement{Host: "w", Port: 1, Shards: map[string]string{}}
		for _, table := range strings.Split(distributed, "|") {
			places[i].Shards[table] = fmt.Sprintf("recall.%s_%d", table, 10+i)
		}
	}
	places[1].Shards["sources"] = places[0].Shards["sources"] // both sets in one sources shard
	text, err := st.ShardSQLSets(odd, places)
	if err != nil {
		t.Fatal(err)
	}
	routedText, err := st.Routed([]string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	reads := strings.Count(routedText, `(SELECT * FROM recall.memories WHERE scopes = '{"a"}'::text[])`)
	both := arrayLiteral(odd[0]) + "::text[], " + arrayLiteral(odd[1]) + "::text[]"
	for _, c := range []struct {
		what string
		n    int
	}{
		{"SELECT * FROM recall.memories_10 WHERE scopes IN (" + both + ") UNION ALL SELECT * FROM recall.memories_11 WHERE scopes IN (" + both + ")", reads},
		{"recall.sources_10 WHERE scopes IN (" + both + ")", strings.Count(routedText, "recall.sources WHERE")},
		{"recall.sources_11", 0},
		{"recall.probe_titles_shard(" + arrayLiteral(odd[0]) + "::text[], ", 1},
		{"recall.probe_titles_shard(" + arrayLiteral(odd[1]) + "::text[], ", 1},
		{"recall.probe_entities_shard(", 2},
		{"\x00", 0},
	} {
		if n := strings.Count(text, c.what); n != c.n || c.n > 0 && reads == 0 {
			t.Errorf("%q: %d times, want %d", c.what, n, c.n)
		}
	}
}

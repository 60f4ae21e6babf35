package statement

import (
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

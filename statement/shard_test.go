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
	delete(p.Shards, "mentions")
	if _, err := st.ShardSQL([]string{"a"}, p); err == nil || !strings.Contains(err.Error(), "recall.mentions") {
		t.Fatalf("a placement without the mentions shard: %v", err)
	}
}

package recall_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// A scope's summaries (recall summarize) stand in for memories that do not fit, and the
// graph context says how the question's entities connect to what was packed. The README
// shows this output (TestREADMEShowsSummaryPack).
func ExampleEngine_Summarize() {
	db, drop := testdb.ForExample()
	defer drop()
	ctx := context.Background()
	emb, _ := embed.NewHashing(0)
	engine, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: emb, NoAccess: true})
	if err != nil {
		panic(err)
	}
	ana := recall.User{ID: "ana", Read: []string{"team"}, Write: []string{"team"}}
	chunk := func(topic string) string {
		return fmt.Sprintf("The review of the crane project went through the %[1]s in detail. "+
			"Dan Wu walked the group through every drawing, load case and weld of the %[1]s, one by one. "+
			"The team wrote down each open question about the %[1]s for the next meeting. "+
			"Two suppliers sent new figures for the %[1]s during the review, and both were checked. "+
			"The minutes of the review list every figure for the %[1]s that changed since the spring. "+
			"Nobody expected the %[1]s to take the whole afternoon, but it did.", topic)
	}
	_, err = engine.Write(ctx, ana, recall.Batch{
		Sources: []recall.Source{{ID: "review", Title: "Crane design review", URI: "https://wiki.example/review"}},
		Entities: []recall.Entity{{ID: "alice", Name: "Alice Martin", Kind: "person"}, {ID: "dan", Name: "Dan Wu", Kind: "person"},
			{ID: "crane", Name: "crane project"}},
		Memories: []recall.Memory{
			{ID: "review-1", Source: "review", Position: 1, Text: chunk("boom"), Entities: []string{"dan", "crane"}},
			{ID: "review-2", Source: "review", Position: 2, Text: chunk("counterweight"), Entities: []string{"dan", "crane"}},
			{ID: "review-3", Source: "review", Position: 3, Text: chunk("foundation"), Entities: []string{"dan", "crane"}},
			{ID: "lead", Text: "Alice Martin leads the crane project.", Entities: []string{"alice", "crane"}},
		},
		Relations: []recall.Relation{{From: "alice", To: "crane", Predicate: "leads", Memory: "lead"}, {From: "dan", To: "crane", Predicate: "reviewed", Memory: "review-1"}},
	})
	if err != nil {
		panic(err)
	}
	res, err := engine.Summarize(ctx, ana, recall.SummarizeOptions{By: []string{recall.BySession}, MaxTokens: 60})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d summary written\n", res.Written)
	pack, err := engine.Recall(ctx, ana, "What did the review of the crane project with Alice Martin find?", 100,
		&recall.Options{GraphContext: true})
	if err != nil {
		panic(err)
	}
	sources := map[int64]string{}
	for _, s := range pack.Sources {
		sources[s.ID] = s.Title
	}
	for i, it := range pack.Items {
		fmt.Printf("%d. %s (%s) %s\n", i+1, it.ExternalID, it.Kind, it.Text)
		if it.SourceID != 0 {
			fmt.Printf("   source: %s\n", sources[it.SourceID])
		}
	}
	for _, c := range pack.Climbs {
		fmt.Printf("climbed: a summary in place of %d memories that did not fit\n", len(c.Replaced))
	}
	for _, t := range pack.GraphContext {
		fmt.Printf("graph: %s -%s-> %s (evidence %s)\n", t.Subject, t.Predicate, t.Object, t.Evidence)
	}
	fmt.Printf("%d of %d tokens (graph context %d), altitude %s\n", pack.Used, pack.Budget, pack.GraphTokens, pack.Altitude)
	// Output:
	// 1 summary written
	// 1. lead (world) Alice Martin leads the crane project.
	// 2. recall-summary:session:review (summary) Nobody expected the boom to take the whole afternoon, but it did. The minutes of the review list every figure for the counterweight that changed since the spring. The review of the crane project went through the foundation in detail.
	//    source: Crane design review
	// climbed: a summary in place of 3 memories that did not fit
	// graph: Alice Martin -co_mentioned-> crane project (evidence lead)
	// graph: Alice Martin -leads-> crane project (evidence lead)
	// 87 of 100 tokens (graph context 18), altitude auto
}

// TestREADMEShowsSummaryPack: the README's pack with a summary and graph context is
// ExampleEngine_Summarize's output, word for word.
func TestREADMEShowsSummaryPack(t *testing.T) {
	t.Parallel()
	s, readme := withREADME(t, "example_summary_test.go")
	begin := strings.Index(s, "\t// Output:\n")
	end := strings.Index(s[begin:], "\n}\n")
	if begin < 0 || end < 0 {
		t.Fatal("no Output block in example_summary_test.go")
	}
	var want strings.Builder
	for _, line := range strings.Split(s[begin+len("\t// Output:\n"):begin+end], "\n") {
		want.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "\t//"), " ") + "\n")
	}
	if !strings.Contains(readme, "```text\n"+want.String()+"```\n") {
		t.Fatalf("README.md lacks the example's output as a text block:\n%s", want.String())
	}
}

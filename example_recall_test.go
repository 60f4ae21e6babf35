package recall_test

import (
	"context"
	"fmt"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// Recall answers a question with the evidence that fits a token budget; each item says which
// lanes found it.
func ExampleEngine_Recall() {
	db, drop := testdb.ForExample()
	defer drop()
	ctx := context.Background()
	emb, _ := embed.NewHashing(0)
	if err := loadWorld(ctx, db.Owner, emb, []string{"team"}); err != nil {
		panic(err)
	}
	now := time.Date(2022, 6, 1, 0, 0, 0, 0, time.UTC)
	engine, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: emb, Now: func() time.Time { return now }})
	if err != nil {
		panic(err)
	}
	alice := recall.User{ID: "alice", Read: []string{"team"}, Write: []string{"team"}}
	pack, err := engine.Recall(ctx, alice, "When did Alice Martin move to Lisbon?", 60, nil)
	if err != nil {
		panic(err)
	}
	for i, it := range pack.Items {
		fmt.Printf("%d. %s [%s] %s\n", i+1, it.ExternalID, it.Provenance(), it.Text)
	}
	fmt.Printf("%d of %d tokens, %d omitted, %d accesses recorded\n", pack.Used, pack.Budget, len(pack.Omitted), pack.Accessed)
	// Output:
	// 1. m01 [vector#1 bm25#1 mention#2 context#1] Alice Martin moved to Lisbon in March 2021 to work on the harbor project.
	// 2. m08 [vector#2 bm25#2 mention#2 context#2] In July 2021 Alice flew from Lisbon to Tokyo for a conference on ports.
	// 3. m09 [vector#3 bm25#3 mention#2 context#3] Tokyo was humid; Alice met Dan Wu at the conference dinner.
	// 52 of 60 tokens, 6 omitted, 3 accesses recorded
}

// Trace shows why a memory ranked where it did, without recording any access.
func ExampleEngine_Trace() {
	db, drop := testdb.ForExample()
	defer drop()
	ctx := context.Background()
	emb, _ := embed.NewHashing(0)
	if err := loadWorld(ctx, db.Owner, emb, []string{"team"}); err != nil {
		panic(err)
	}
	now := time.Date(2022, 6, 1, 0, 0, 0, 0, time.UTC)
	engine, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: emb, Now: func() time.Time { return now }})
	if err != nil {
		panic(err)
	}
	bob := recall.User{ID: "bob", Read: []string{"team"}, Write: []string{"team"}}
	tr, err := engine.Trace(ctx, bob, "What did Bob Stone present about the harbor cranes?", 40, nil)
	if err != nil {
		panic(err)
	}
	top := &tr.Candidates[0]
	fmt.Print(tr.Why(top))
	fmt.Printf("packed %d, accesses recorded %d\n", len(tr.Pack.Items), tr.Pack.Accessed)
	// Output:
	// memory 3 (m03): fused #1, score 0.608333 = RRF 0.608333
	//   vector    rank   1  score     0.3705  adds 0.016667
	//   bm25      rank   1  score     6.7982  adds 0.233333
	//   mention   rank   2  score     1.3122  adds 0.025000
	//   title     not found
	//   context   rank   1  score     6.7982  adds 0.333333
	//   learned order hashing-v10: score 7.1473 = +1.1647 doc_bm25_rel (1) +1.1322 doc_lane_context (0.333) +1.0791 doc_lane_bm25 (0.333) +0.7154 doc_best (0.333) +0.7008 doc_cover_idf (1) and 11 more
	//   not reranked, merit #1
	//   packed (20 tokens)
	// packed 2, accesses recorded 0
}

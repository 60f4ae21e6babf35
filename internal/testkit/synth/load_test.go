package synth

import (
	"context"
	"testing"

	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestLoadSmallScope loads a corpus and counts, as each scope's caller under row security,
// the memories, sources and people it sees: the small scope holds its own, not copies of
// the big scope's.
func TestLoadSmallScope(t *testing.T) {
	db := testdb.New(t)
	c := New(Config{N: 3000, Dim: 8, Entities: 1000})
	if err := c.Load(context.Background(), db.Owner, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string][3]int{BigScope: {2970, 150, 1000}, SmallScope: {30, 2, 200}}
	for scope, w := range want {
		tx := testdb.BeginAs(t, db.Runtime, []string{scope}, nil)
		var mem, src, ent, badSrc, badMention int
		err := tx.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM recall.memories),
			(SELECT count(*) FROM recall.sources),
			(SELECT count(*) FROM recall.entities),
			(SELECT count(*) FROM recall.memories m LEFT JOIN recall.sources s ON s.id = m.source_id WHERE s.id IS NULL),
			(SELECT count(*) FROM recall.mentions n LEFT JOIN recall.entities e ON e.id = n.entity_id WHERE e.id IS NULL)`).
			Scan(&mem, &src, &ent, &badSrc, &badMention)
		if err != nil {
			t.Fatal(err)
		}
		if [3]int{mem, src, ent} != w || badSrc != 0 || badMention != 0 {
			t.Fatalf("%s sees %d memories, %d sources, %d people (want %v); %d memories and %d mentions point at rows it cannot see",
				scope, mem, src, ent, w, badSrc, badMention)
		}
		_ = tx.Rollback(context.Background())
	}
}

package recall_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/recall-engine/recall/embed"
)

// note is one memory of the test world.
type note struct {
	id, source, text string
	day              string // occurred, YYYY-MM-DD
	people           []string
	tags             []string
}

var people = map[string][]string{ // name -> aliases
	"Alice Martin": {"Alice"},
	"Bob Stone":    {"Bob"},
	"Carol Diaz":   {"Carol"},
	"Dan Wu":       {"Dan"},
}

var sources = map[string]string{ // external id -> title
	"diary":   "Alice's travel diary",
	"minutes": "Harbor project minutes",
	"recipes": "Family recipes",
}

var world = []note{
	{"m01", "diary", "Alice Martin moved to Lisbon in March 2021 to work on the harbor project.", "2021-03-02", []string{"Alice Martin"}, []string{"travel"}},
	{"m02", "diary", "Alice and Bob Stone walked along the Tagus river every Sunday morning.", "2021-04-11", []string{"Alice Martin", "Bob Stone"}, []string{"travel"}},
	{"m03", "minutes", "Bob Stone presented the budget for the new harbor cranes; the board approved it.", "2021-05-20", []string{"Bob Stone"}, []string{"work"}},
	{"m04", "minutes", "Carol Diaz raised concerns about the crane delivery schedule.", "2021-06-03", []string{"Carol Diaz"}, []string{"work"}},
	{"m05", "minutes", "Dan Wu will inspect the cranes in Rotterdam before shipping.", "2021-06-17", []string{"Dan Wu"}, []string{"work"}},
	{"m06", "recipes", "Grandmother's lemon cake: butter, sugar, four eggs, flour and two lemons.", "2019-12-24", nil, []string{"food"}},
	{"m07", "recipes", "Carol Diaz bakes bread with rye flour and caraway on Saturdays.", "2020-02-15", []string{"Carol Diaz"}, []string{"food"}},
	{"m08", "diary", "In July 2021 Alice flew from Lisbon to Tokyo for a conference on ports.", "2021-07-08", []string{"Alice Martin"}, []string{"travel"}},
	{"m09", "diary", "Tokyo was humid; Alice met Dan Wu at the conference dinner.", "2021-07-10", []string{"Alice Martin", "Dan Wu"}, []string{"travel"}},
	{"m10", "minutes", "The harbor project finished two months late because the cranes arrived in October.", "2021-11-30", nil, []string{"work"}},
	{"m11", "", "Bob Stone adopted a grey cat named Pixel.", "2022-01-05", []string{"Bob Stone"}, nil},
	{"m12", "", "Dan Wu runs a marathon every spring in Rotterdam.", "2022-04-10", []string{"Dan Wu"}, nil},
}

// loadWorld writes the world into scopes as the owner, with embeddings from e.
func loadWorld(ctx context.Context, owner *pgxpool.Pool, e embed.Embedder, scopes []string) error {
	tx, err := owner.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	if _, err := tx.Exec(ctx, `SELECT recall.ensure_vector_index($1)`, e.Dim()); err != nil {
		return err
	}
	src := map[string]int64{}
	for ext, title := range sources {
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO recall.sources (external_id, scopes, title) VALUES ($1, $2, $3) RETURNING id`,
			ext, scopes, title).Scan(&id); err != nil {
			return err
		}
		src[ext] = id
	}
	ent := map[string]int64{}
	for name, aliases := range people {
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO recall.entities (external_id, scopes, name, kind, aliases) VALUES ($1, $2, $3, 'person', $4) RETURNING id`,
			strings.ToLower(strings.ReplaceAll(name, " ", "-")), scopes, name, aliases).Scan(&id); err != nil {
			return err
		}
		ent[name] = id
	}
	texts := make([]string, len(world))
	for i, n := range world {
		texts[i] = n.text
	}
	vecs, err := e.Embed(ctx, texts, embed.Document)
	if err != nil {
		return err
	}
	for i, n := range world {
		var srcID *int64
		if id, ok := src[n.source]; ok {
			srcID = &id
		}
		day, err := time.Parse(time.DateOnly, n.day)
		if err != nil {
			return err
		}
		tags := n.tags
		if tags == nil {
			tags = []string{}
		}
		var mem int64
		if err := tx.QueryRow(ctx, `INSERT INTO recall.memories (external_id, scopes, source_id, text, embedding, occurred_start, tags)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
			n.id, scopes, srcID, n.text, pgvector.NewVector(vecs[i]), day, tags).Scan(&mem); err != nil {
			return fmt.Errorf("%s: %w", n.id, err)
		}
		for j, p := range n.people {
			if _, err := tx.Exec(ctx, `INSERT INTO recall.mentions (memory_id, entity_id, scopes) VALUES ($1, $2, $3)`, mem, ent[p], scopes); err != nil {
				return err
			}
			for _, q := range n.people[j+1:] {
				if _, err := tx.Exec(ctx, `INSERT INTO recall.relations (scopes, src_id, dst_id, memory_id) VALUES ($1, $2, $3, $4)`,
					scopes, ent[p], ent[q], mem); err != nil {
					return err
				}
			}
		}
	}
	if _, err := tx.Exec(ctx, `ANALYZE recall.memories`); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

package synth

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"
)

// Progress is told how far a load is: stage names what is being written.
type Progress func(stage string, done, total int)

// Load writes the corpus into the database of owner (recall_owner, migrated, empty):
// sources, memories, people and mentions with COPY in batches, then co-occurrence relations,
// the vector index for Dim, and VACUUM (ANALYZE) until every table is all-visible.
func (c *Corpus) Load(ctx context.Context, owner *pgxpool.Pool, progress Progress) error {
	if progress == nil {
		progress = func(string, int, int) {}
	}
	srcID, err := c.loadSources(ctx, owner)
	if err != nil {
		return err
	}
	if err := c.loadEntities(ctx, owner); err != nil {
		return err
	}
	if err := c.loadMemories(ctx, owner, srcID, progress); err != nil {
		return err
	}
	return c.finish(ctx, owner, progress)
}

// loadSources writes the big scope's sources (one per PerSrc memory numbers) and the small
// scope's own (one per PerSrc of its memories, external ids "s<i>-small", titled as source i
// of a corpus of its size), and returns their ids by external id.
func (c *Corpus) loadSources(ctx context.Context, owner *pgxpool.Pool) (map[string]int64, error) {
	cfg := c.Cfg
	var srcRows [][]any
	for s := range (cfg.N + cfg.PerSrc - 1) / cfg.PerSrc {
		srcRows = append(srcRows, []any{fmt.Sprintf("s%d", s), []string{BigScope}, c.SourceTitle(s)})
	}
	for s := range c.SmallSources() {
		srcRows = append(srcRows, []any{fmt.Sprintf("s%d-small", s), []string{SmallScope}, c.SourceTitle(s)})
	}
	if _, err := owner.CopyFrom(ctx, pgx.Identifier{"recall", "sources"}, []string{"external_id", "scopes", "title"}, pgx.CopyFromRows(srcRows)); err != nil {
		return nil, fmt.Errorf("synth: sources: %w", err)
	}
	srcID := map[string]int64{}
	rows, err := owner.Query(ctx, `SELECT external_id, id FROM recall.sources`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var e string
		var id int64
		if err := rows.Scan(&e, &id); err != nil {
			return nil, err
		}
		srcID[e] = id
	}
	return srcID, rows.Err()
}

// loadEntities writes the people: all of them in the big scope, the first SmallEntities in
// the small one.
func (c *Corpus) loadEntities(ctx context.Context, owner *pgxpool.Pool) error {
	var entRows [][]any
	small := c.SmallEntities()
	for i, p := range c.People {
		entRows = append(entRows, []any{fmt.Sprintf("p%d", i), []string{BigScope}, p, "person"})
		if i < small {
			entRows = append(entRows, []any{fmt.Sprintf("p%d", i), []string{SmallScope}, p, "person"})
		}
	}
	if _, err := owner.CopyFrom(ctx, pgx.Identifier{"recall", "entities"}, []string{"external_id", "scopes", "name", "kind"}, pgx.CopyFromRows(entRows)); err != nil {
		return fmt.Errorf("synth: entities: %w", err)
	}
	return nil
}

// loadMemories writes the memories in batches by COPY, with their mentions in a scratch
// table that finish turns into rows.
func (c *Corpus) loadMemories(ctx context.Context, owner *pgxpool.Pool, srcID map[string]int64, progress Progress) error {
	cfg := c.Cfg
	if _, err := owner.Exec(ctx, `CREATE UNLOGGED TABLE IF NOT EXISTS recall.synth_mentions (memory text, person text, scope text)`); err != nil {
		return err
	}
	const batch = 20000
	for lo := 0; lo < cfg.N; lo += batch {
		hi := min(cfg.N, lo+batch)
		mem := make([][]any, 0, hi-lo)
		var men [][]any
		var vecs [][]float32
		var err error
		if cfg.Embed != nil {
			texts := make([]string, 0, hi-lo)
			for i := lo; i < hi; i++ {
				texts = append(texts, c.Memory(i).Text)
			}
			if vecs, err = cfg.Embed(texts); err != nil {
				return fmt.Errorf("synth: embedding memories %d-%d: %w", lo, hi, err)
			}
		}
		for i := lo; i < hi; i++ {
			m := c.Memory(i)
			if vecs != nil {
				m.Embedding = vecs[i-lo]
			}
			src := fmt.Sprintf("s%d", m.Source)
			if m.Scopes[0] == SmallScope {
				src += "-small"
			}
			mem = append(mem, []any{m.ExternalID, m.Scopes, srcID[src], m.Kind, m.Text,
				pgvector.NewVector(m.Embedding), m.Start, m.End, m.Tags})
			for _, p := range m.People {
				men = append(men, []any{m.ExternalID, fmt.Sprintf("p%d", p), m.Scopes[0]})
			}
		}
		if _, err := owner.CopyFrom(ctx, pgx.Identifier{"recall", "memories"},
			[]string{"external_id", "scopes", "source_id", "kind", "text", "embedding", "occurred_start", "occurred_end", "tags"},
			pgx.CopyFromRows(mem)); err != nil {
			return fmt.Errorf("synth: memories %d-%d: %w", lo, hi, err)
		}
		if _, err := owner.CopyFrom(ctx, pgx.Identifier{"recall", "synth_mentions"}, []string{"memory", "person", "scope"}, pgx.CopyFromRows(men)); err != nil {
			return fmt.Errorf("synth: mentions %d-%d: %w", lo, hi, err)
		}
		progress("memories", hi, cfg.N)
	}
	return nil
}

// finish links mentions and relations, builds the vector index and vacuums.
func (c *Corpus) finish(ctx context.Context, owner *pgxpool.Pool, progress Progress) error {
	cfg := c.Cfg
	for _, q := range []struct{ stage, sql string }{
		{"mentions", `INSERT INTO recall.mentions (memory_id, entity_id, scopes)
			SELECT m.id, e.id, m.scopes FROM recall.synth_mentions s
			JOIN recall.memories m ON m.scopes = ARRAY[s.scope] AND m.external_id = s.memory
			JOIN recall.entities e ON e.scopes = ARRAY[s.scope] AND e.external_id = s.person
			ON CONFLICT DO NOTHING`},
		{"relations", `INSERT INTO recall.relations (scopes, src_id, dst_id, predicate, weight)
			SELECT a.scopes, a.entity_id, b.entity_id, 'co_mentioned', count(*)
			FROM recall.mentions a JOIN recall.mentions b ON a.scopes = b.scopes AND a.memory_id = b.memory_id AND a.entity_id < b.entity_id
			GROUP BY a.scopes, a.entity_id, b.entity_id`},
		{"cleanup", `DROP TABLE recall.synth_mentions`},
		{"vector index", fmt.Sprintf(`SET maintenance_work_mem = '%dMB'; SELECT recall.ensure_vector_index(%d)`, HNSWBuildMB(cfg.N, cfg.Dim), cfg.Dim)},
		{"vacuum", `VACUUM (ANALYZE)`},
	} {
		progress(q.stage, 0, 1)
		if _, err := owner.Exec(ctx, q.sql); err != nil {
			return fmt.Errorf("synth: %s: %w", q.stage, err)
		}
		progress(q.stage, 1, 1)
	}
	return settleVisibility(ctx, owner)
}

// settleVisibility vacuums again, for up to ten seconds, the tables whose pages the VACUUM
// could not all mark all-visible, so that a benchmark starts from the steady state
// autovacuum would reach and index-only scans read no heap. The first VACUUM left mentions
// and relations with no all-visible page at 100k (so one graph lane made 3,125 heap
// fetches); a VACUUM run later marked them all.
func settleVisibility(ctx context.Context, owner *pgxpool.Pool) error {
	for range 10 {
		rows, err := owner.Query(ctx, `SELECT relname FROM pg_class
			WHERE relnamespace = 'recall'::regnamespace AND relkind = 'r' AND relallvisible < relpages`)
		if err != nil {
			return fmt.Errorf("synth: visibility: %w", err)
		}
		tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("synth: visibility: %w", err)
		}
		if len(tables) == 0 {
			return nil
		}
		time.Sleep(time.Second)
		for _, t := range tables {
			if _, err := owner.Exec(ctx, "VACUUM (ANALYZE) "+pgx.Identifier{"recall", t}.Sanitize()); err != nil {
				return fmt.Errorf("synth: vacuum %s: %w", t, err)
			}
		}
	}
	return nil
}

// HNSWBuildMB is the maintenance_work_mem the HNSW build gets: room for the whole graph (the
// vectors and about 1 kB of neighbour lists per element, plus a quarter), so that pgvector
// need not fall back to its much slower on-disk build, and at least 4 GB. At a million
// 1024-dimension memories that is 6.3 GB.
func HNSWBuildMB(n, dim int) int {
	return max(4096, int(float64(n)*float64(dim*4+1024)*1.25/(1<<20)))
}

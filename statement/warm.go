package statement

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/recall-engine/recall/internal/scope"
)

// Warm prepares connection c for recalls: it runs st for q as a caller who sees nothing (so
// the statement is prepared and planned, reading and writing nothing), then the lanes'
// probes and, when dims holds q's dimension, one HNSW scan (sql/lanes/warm_probes.sql,
// warm_vector.sql), which such a caller's statement leaves unread: the probes' plans are
// cached per session, and a session's first HNSW scan is slow. They run with a recall's
// session settings but iterative scans off. It returns the first failure.
func Warm(ctx context.Context, c *pgx.Conn, st *Statement, q Query, s Settings, dims []int) error {
	if _, err := Run(ctx, c, Scopes{Read: []string{}}, st, q, s); err != nil {
		return fmt.Errorf("statement: warm: %w", err)
	}
	settings := s.Session()
	for i := range settings {
		if settings[i].Name == "hnsw.iterative_scan" {
			settings[i].Value = "off"
		}
	}
	mentions := q.Mentions
	if mentions == nil {
		mentions = Mentions(q.Raw)
	}
	err := pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, nil, nil, settings...); err != nil {
			return err
		}
		if scope.Distributed(tx) {
			// The routed statement has the probes inline and runs its HNSW scans on the
			// workers, which a coordinator's connection does not warm.
			return nil
		}
		if _, err := tx.Exec(ctx, fragment("warm_probes", 0), pgx.StrictNamedArgs{
			"qentities": mentions, "mention_floor": s.MentionFloor, "qlower": strings.ToLower(q.Raw),
			"title_exact_words": s.TitleExactWords, "title_fuzzy_words": s.TitleFuzzyWords, "title_floor": s.TitleFloor,
		}); err != nil {
			return err
		}
		if d := len(q.Vector); d > 0 && slices.Contains(dims, d) {
			_, err := tx.Exec(ctx, fragment("warm_vector", d), pgx.StrictNamedArgs{"qvec": pgvector.NewVector(q.Vector), "vector_k": s.VectorK})
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("statement: warm: %w", err)
	}
	return nil
}

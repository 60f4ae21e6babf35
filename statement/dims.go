package statement

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/dberr"
)

// DimensionError is returned when the embedder's dimension differs from every dimension the
// database stores embeddings in: the vector lane would find nothing. Fix the configuration
// (or re-embed the corpus); it is an error even in lenient mode.
type DimensionError struct {
	Embedder int   // the configured embedder's dimension
	Stored   []int // the dimensions the database has vector indexes for
}

func (e *DimensionError) Error() string {
	return fmt.Sprintf("recall: embedding: the embedder gives %d dimensions, the database stores %v", e.Embedder, e.Stored)
}

// Dims knows the embedding dimensions a database stores: one vector index per dimension in
// use (sql/write/vector_index.sql), listed at most every 10 s. The zero value is ready; it is
// safe for concurrent use.
type Dims struct {
	mu   sync.Mutex
	dims []int
	read time.Time
}

// Querier runs a query: a *pgxpool.Pool or a *pgx.Conn.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Stored lists the stored dimensions, sorted: from the last listing when it is under 10 s
// old, unless refresh is set.
func (d *Dims) Stored(ctx context.Context, pool Querier, refresh bool) ([]int, error) {
	// The lock is not held over the query: the query may wait for a pool connection whose
	// making (recall.Open's warm-up) asks for the dimensions too.
	d.mu.Lock()
	if !refresh && !d.read.IsZero() && time.Since(d.read) < 10*time.Second {
		dims := d.dims
		d.mu.Unlock()
		return dims, nil
	}
	d.mu.Unlock()
	q, args, err := sq.Select("indexname").From("pg_indexes").
		Where(sq.Eq{"schemaname": "recall"}).
		Where(sq.Like{"indexname": `memories\_embedding\_%\_hnsw`}).
		PlaceholderFormat(sq.Dollar).ToSql()
	if err != nil {
		return nil, err
	}
	rows, err := pool.Query(ctx, q, args...)
	if err != nil {
		return nil, dberr.Interpret(ctx, "recall: listing stored embedding dimensions", err)
	}
	defer rows.Close()
	var dims []int
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "memories_embedding_"), "_hnsw")); err == nil {
			dims = append(dims, n)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, dberr.Interpret(ctx, "recall: listing stored embedding dimensions", err)
	}
	slices.Sort(dims)
	d.mu.Lock()
	d.dims, d.read = dims, time.Now()
	d.mu.Unlock()
	return dims, nil
}

// Check refuses a query vector of dimension dim when the database stores none of it (a
// *DimensionError); a database with no embeddings yet accepts any dimension. A miss lists
// the dimensions again before it refuses.
func (d *Dims) Check(ctx context.Context, pool Querier, dim int) error {
	for _, refresh := range []bool{false, true} {
		dims, err := d.Stored(ctx, pool, refresh)
		if err != nil {
			return err
		}
		if len(dims) == 0 || slices.Contains(dims, dim) {
			return nil
		}
		if refresh {
			return &DimensionError{Embedder: dim, Stored: dims}
		}
	}
	return nil
}

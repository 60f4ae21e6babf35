// Package statement owns the recall statement: it composes the lanes of a plan into one SQL
// statement (one CTE per lane, then Reciprocal Rank Fusion), caches it per shape, binds every
// tunable as a named parameter, and runs it as the caller under row-level security.
package statement

import (
	"bufio"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	recallsql "github.com/recall-engine/recall/sql"
)

// MaxDim is the largest embedding dimension pgvector's HNSW indexes.
const MaxDim = 2000

// Shape is what changes the statement's text; everything else is a bind. Dim is the query
// embedding's dimension (0: no vector, so the vector lane is left out); Fuzzy compiles the
// trigram branch of entity matching.
type Shape struct {
	Dim   int
	Fuzzy bool
	Plan  Plan
}

// Statement is one compiled recall statement.
type Statement struct {
	Shape Shape
	SQL   string
	// Binds are the named parameters the SQL uses, sorted.
	Binds []string
	// Lanes are the lanes compiled in, in output order.
	Lanes []Lane
}

// ErrEmptyPlan is returned by Build for a plan that runs no lane (after dropping the vector
// lane when the shape has no dimension).
var ErrEmptyPlan = errors.New("statement: the plan runs no lane")

var (
	markerRE = regexp.MustCompile(`\{\{[^}]*\}\}`)
	// A named bind: @ followed by an identifier, not preceded by @ or < (the @@, <@ operators).
	bindRE = regexp.MustCompile(`(^|[^@<])@([a-z_][a-z0-9_]*)`)
)

func fragment(name string, dim int) string {
	b, err := recallsql.Lanes.ReadFile("lanes/" + name + ".sql")
	if err != nil {
		panic(fmt.Sprintf("statement: missing fragment %s: %v", name, err)) // embedded at build time
	}
	var out strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "--") || strings.TrimSpace(line) == "" {
			continue
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	return strings.ReplaceAll(strings.TrimRight(out.String(), "\n"), "{{dim}}", strconv.Itoa(dim))
}

// Build composes the statement for shape. It is deterministic: the same shape gives the same
// text, byte for byte.
func Build(shape Shape) (*Statement, error) {
	if shape.Dim < 0 || shape.Dim > MaxDim {
		return nil, fmt.Errorf("statement: dimension %d out of range 0..%d", shape.Dim, MaxDim)
	}
	plan := shape.Plan
	if shape.Dim == 0 {
		plan &^= Only(Vector)
	}
	if plan == 0 {
		return nil, ErrEmptyPlan
	}
	lanes := plan.Lanes()

	// The caller's scope sets and counts, shared by several lanes; a WITH query nothing reads
	// is not run.
	ctes := []string{fragment("visible", 0)}
	if plan.Has(Vector) || plan.Has(Graph) {
		if shape.Dim > 0 {
			ctes = append(ctes, fragment("vector", shape.Dim))
		} else {
			ctes = append(ctes, "vector_hits AS (SELECT NULL::bigint AS id, NULL::float8 AS distance WHERE false)")
		}
	}
	if plan.Has(BM25) {
		ctes = append(ctes, fragment("bm25", 0))
	}
	if plan.Has(Mention) || plan.Has(Graph) {
		if shape.Fuzzy {
			ctes = append(ctes, fragment("mention_fuzzy", 0))
		} else {
			ctes = append(ctes, fragment("mention_exact", 0))
		}
	}
	if plan.Has(Mention) {
		ctes = append(ctes, fragment("mention", 0))
	}
	if plan.Has(Title) {
		ctes = append(ctes, fragment("title", 0))
	}
	if plan.Has(Graph) {
		ctes = append(ctes, fragment("graph", 0))
	}
	if plan.Has(Temporal) {
		ctes = append(ctes, fragment("temporal", 0))
	}
	ctes = append(ctes, fusion(plan))

	sql := "WITH RECURSIVE\n" + strings.Join(ctes, ",\n") + "\n" + fragment("fusion_tail", 0) + "\n"
	if m := markerRE.FindString(sql); m != "" {
		return nil, fmt.Errorf("statement: marker %s left in the statement", m)
	}
	binds := map[string]bool{}
	for _, m := range bindRE.FindAllStringSubmatch(sql, -1) {
		binds[m[2]] = true
	}
	names := make([]string, 0, len(binds))
	for n := range binds {
		names = append(names, n)
	}
	slices.Sort(names)
	return &Statement{Shape: Shape{Dim: shape.Dim, Fuzzy: shape.Fuzzy, Plan: plan}, SQL: sql, Binds: names, Lanes: lanes}, nil
}

// fusion writes the candidates and fused_rrf CTEs: every lane's rows, one per (lane, memory),
// then one row per memory with each lane's rank and score as columns (NULL for lanes not in
// the plan, so every plan scans the same way; a trace reads this same statement), and
// Reciprocal Rank Fusion, sum(weight / (rrf_k + rank)), added in lane order.
// sql/lanes/fusion_tail.sql adds the recency and frequency terms. The pivot is one aggregate
// over the union: LEFT JOINs of the lanes to their union were nested loops over CTE scans,
// about 100k row visits per recall at 100k memories.
func fusion(plan Plan) string {
	var b strings.Builder
	b.WriteString("candidates AS (\n")
	for i, l := range plan.Lanes() {
		if i > 0 {
			b.WriteString("  UNION ALL\n")
		}
		direct := "false AS direct"
		if l == Title {
			direct = "direct"
		}
		fmt.Fprintf(&b, "  SELECT %d AS lane, id, rank, score::float8 AS score, %s FROM %s_lane\n", l, direct, l)
	}
	b.WriteString("),\nfused_rrf AS (\n  SELECT x.*,\n    ")
	for i, l := range plan.Lanes() {
		if i > 0 {
			b.WriteString("\n      + ")
		}
		fmt.Fprintf(&b, "coalesce(@w_%[1]s::float8 / (@rrf_k::float8 + x.%[1]s_rank), 0)", l)
	}
	b.WriteString(" AS rrf\n  FROM (\n    SELECT id")
	for l := range Lane(NumLanes) {
		if plan.Has(l) {
			fmt.Fprintf(&b, ",\n      max(rank) FILTER (WHERE lane = %[2]d) AS %[1]s_rank, max(score) FILTER (WHERE lane = %[2]d) AS %[1]s_score", l, l)
		} else {
			fmt.Fprintf(&b, ",\n      NULL::bigint AS %[1]s_rank, NULL::float8 AS %[1]s_score", l)
		}
	}
	b.WriteString(",\n      bool_or(direct) AS direct\n    FROM candidates\n    GROUP BY id\n  ) x\n)")
	return b.String()
}

// Cache builds each shape's statement once and hands the same one to every caller. Safe for
// concurrent use; the zero value is ready.
type Cache struct {
	mu     sync.Mutex
	m      map[Shape]*cacheEntry
	builds atomic.Int64
}

type cacheEntry struct {
	once sync.Once
	st   *Statement
	err  error
}

// Get returns the statement for shape, building it on first use.
func (c *Cache) Get(shape Shape) (*Statement, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[Shape]*cacheEntry{}
	}
	e, ok := c.m[shape]
	if !ok {
		e = &cacheEntry{}
		c.m[shape] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		c.builds.Add(1)
		e.st, e.err = Build(shape)
	})
	return e.st, e.err
}

// Builds reports how many statements the cache has built.
func (c *Cache) Builds() int64 { return c.builds.Load() }

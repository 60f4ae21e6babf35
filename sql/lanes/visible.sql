-- visible_sets: the scope sets the caller sees, each with its memory count and total BM25
-- length (recall.bm25_corpus, read under row security by its index: recall.visible_corpus),
-- and its text key, by which memories
-- and postings are indexed. visible_stats: over them, n, the memories the caller sees, and
-- avgdl, their mean BM25 length; cn, those with a place in their source, and the total own
-- (clen) and neighbours' (cnlen) lengths of those. The lexical lanes take their statistics
-- from these; the mention
-- lane, n; the vector lane, n and where to read the memories; the temporal lane, the sets it
-- walks one by one. Every statement has them; a plan that reads neither does not run them.
visible_sets AS MATERIALIZED (
  SELECT recall.scope_key(c.scopes) AS scope_key, c.docs, c.total_len, c.cdocs, c.ctotal_len, c.ctotal_nlen
  FROM {{visible_corpus}} c
),
-- Contract with a recall across workers (statement/spread.go; TestEveryFormRunsEveryLane builds
-- its rounds for every plan and fails when this no longer holds): its lanes round reads
-- visible_stats over every worker's statistics: it replaces this query's one line
-- "  FROM visible_sets", found by its name at the start of its line.
visible_stats AS MATERIALIZED (
  SELECT coalesce(sum(docs), 0)::float8 AS n,
         coalesce(sum(total_len)::float8 / nullif(sum(docs), 0), 1) AS avgdl,
         coalesce(sum(cdocs), 0)::float8 AS cn,
         coalesce(sum(ctotal_len), 0)::float8 AS clen,
         coalesce(sum(ctotal_nlen), 0)::float8 AS cnlen
  FROM visible_sets
)

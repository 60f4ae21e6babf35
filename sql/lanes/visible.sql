-- visible_sets: the scope sets the caller sees, each with its memory count and total BM25
-- length (recall.bm25_corpus, read under row security), and its text key, by which memories
-- and postings are indexed. The bm25 lane takes its statistics from it; the vector lane, the
-- number of memories the caller sees and where to read them; the temporal lane, the sets it
-- walks one by one.
visible_sets AS MATERIALIZED (
  SELECT recall.scope_key(c.scopes) AS scope_key, c.docs, c.total_len FROM recall.bm25_corpus c
)

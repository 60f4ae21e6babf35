-- The index of bm25_postings by term alone (00001) serves no read: the lanes read a term's
-- postings by (scope_key, term, impact) and a candidate's by the primary key, and the writer
-- by (memory_id, ...). It cost about a third of the postings' insert: 72,000 postings (500
-- LongMemEval turns with their neighbours' words) took 0.61-0.69 s without it and 0.89-1.06 s
-- with it (issue "Fast at every size", BENCHMARKS.md).

-- +goose Up
DROP INDEX IF EXISTS recall.bm25_postings_term_idx;

-- +goose Down
CREATE INDEX IF NOT EXISTS bm25_postings_term_idx ON recall.bm25_postings (term);

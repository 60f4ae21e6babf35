-- Split the memories written before migration 00015 into their passages: the update makes
-- recall.memories_lexemes set their passages, and the lexical triggers rebuild their postings
-- (on Citus, recall.bm25_flush, which migrations.Up runs next). memories_unsplit_idx finds
-- them; after the first run it is empty and this reads nothing.
UPDATE recall.memories SET source_id = source_id WHERE passages IS NULL

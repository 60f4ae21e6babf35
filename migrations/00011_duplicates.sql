-- Duplicates on write (issue 35, item 3). A memory without a place in a source (a note, a
-- fact) that restates one already stored in its scope set (the same text once lowered and
-- with every run of other characters than letters and digits made one space: recall.text_key,
-- the same kind and speaker) is handled by the batch's policy (Batch.Duplicates): keep it
-- (the default, as before), skip it (references to it resolve to the stored one), or link it
-- (stored with duplicate_of naming the stored one, never recalled: the stored one is). A turn
-- of a conversation is never a duplicate: "Yes!" said twice is two turns. Deleting the stored
-- memory makes its duplicates memories of their own again (ON DELETE SET NULL
-- (duplicate_of)); the key keeps a duplicate in its original's scope set.

-- +goose Up
CREATE FUNCTION recall.text_key(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN lower(btrim(regexp_replace(t, '[^[:alnum:]]+', ' ', 'g')));
ALTER TABLE recall.memories ADD COLUMN duplicate_of bigint,
  ADD CONSTRAINT memories_duplicate_fkey FOREIGN KEY (duplicate_of, scopes)
    REFERENCES recall.memories (id, scopes) ON DELETE SET NULL (duplicate_of);
CREATE INDEX memories_duplicate_of_idx ON recall.memories (duplicate_of) WHERE duplicate_of IS NOT NULL;
-- The key's md5, not the key: a note's text may pass the 2.7 kB a btree entry holds.
CREATE INDEX memories_text_key_idx ON recall.memories (scopes, md5(recall.text_key(text))) WHERE position IS NULL;

-- +goose Down
DROP INDEX recall.memories_text_key_idx;
DROP INDEX recall.memories_duplicate_of_idx;
ALTER TABLE recall.memories DROP CONSTRAINT memories_duplicate_fkey, DROP COLUMN duplicate_of;
DROP FUNCTION recall.text_key(text);

-- Near-identical duplicates (issue 35, item 3). Batch.DuplicateMatch "words" compares notes by
-- recall.words_key: the words of the text in order, lowered, with contractions written out
-- ("don't" is "do not", "I'm" is "I am") and articles and a few fillers set aside (a, an,
-- the, just, really, very, actually, basically, literally, oh, um, uh, hmm). Every other
-- word counts, in its place: a negation, a tense ("lived" is not "lives"), a pronoun, a
-- preposition, a number or a name makes two notes different. "The user likes pizza." and
-- "user likes pizza" are one note; "Ana lives in Lisbon" and "Ana lives in Berlin" are two,
-- as are "I like it" and "I don't like it". It is an equality of keys, not a similarity
-- threshold: at any threshold on shared characters or words that merges restatements of a
-- long note, a changed city or number in it merges too (eval/results/duplicates.md).

-- +goose Up
CREATE FUNCTION recall.words_key(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN btrim(regexp_replace(regexp_replace(recall.text_key(
  regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
    regexp_replace(lower(t), '[’‘`]', '''', 'g'),
    '\mwon''t\M', 'will not', 'g'),
    '\mcan''t\M|\mcannot\M', 'can not', 'g'),
    'n''t\M', ' not', 'g'),
    '''m\M', ' am', 'g'),
    '''re\M', ' are', 'g'),
    '''ve\M', ' have', 'g'),
    '''ll\M', ' will', 'g')),
  '\m(a|an|the|just|really|very|actually|basically|literally|oh|um|uh|hmm)\M', ' ', 'g'),
  ' +', ' ', 'g'));
CREATE INDEX memories_words_key_idx ON recall.memories (scopes, md5(recall.words_key(text))) WHERE position IS NULL;

-- +goose Down
DROP INDEX recall.memories_words_key_idx;
DROP FUNCTION recall.words_key(text);

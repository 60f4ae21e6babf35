-- recall.entity_trigrams (migration 00007) follows each entity's name and scopes, as
-- recall.title_trigrams follows titles (sql/write/title_trigrams.sql): an entity written or
-- renamed has its rows replaced; a deleted one loses them by the foreign key. The trigger runs
-- as the owner (the runtime role cannot read or write the table). Each entity has one more
-- row, of the empty trigram, by which the probe counts a caller's entities.
{{template "trigram_postings_trigger" (trigger "entities_name_trigrams" "entity_trigrams" "entity_id" "entities" "name")}}

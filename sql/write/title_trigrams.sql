-- recall.title_trigrams (migration 00004) follows each source's title and scopes: a source
-- written or moved has its rows replaced; a deleted one loses them by the foreign key. The
-- trigger runs as the owner (the runtime role cannot read or write the table). Each source
-- has one more row, of the empty trigram, by which the probe counts a caller's titles.
{{template "trigram_postings_trigger" (trigger "sources_title_trigrams" "title_trigrams" "source_id" "sources" "title")}}

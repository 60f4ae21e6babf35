-- Engine.Erase: everything of the scope set @scopes, as recall.erase_scope_set removes it (or
-- counts it, with @dry): each table of the schema with its rows of the set, and the
-- transaction's time, the receipt's.
SELECT tbl, n, transaction_timestamp() FROM recall.erase_scope_set(@scopes::text[], @dry::boolean)

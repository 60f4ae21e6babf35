-- Clear the coverage of the batch's memories (@ids): writing a summary replaces what it
-- covers, and a memory written as another kind covers nothing.
DELETE FROM recall.summary_coverage WHERE summary_id = ANY(@ids::bigint[])

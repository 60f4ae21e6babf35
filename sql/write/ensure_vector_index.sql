-- Create the vector index of dimension @dim when it is missing (sql/write/vector_index.sql
-- defines recall.ensure_vector_index; the runtime role may call it).
SELECT recall.ensure_vector_index(@dim::int)

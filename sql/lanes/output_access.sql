-- output_access: each fused candidate with its recency and frequency terms, from its access
-- row (recall.memory_access); output_top (output.sql) adds them to its RRF sum in this order.
-- A cross-worker recall reads them for its candidates on their workers (spread.go).
output_access AS (
  SELECT f.*,
         @w_recency::float8 * coalesce(exp(-ln(2) * extract(epoch FROM @now::timestamptz - ac.last_accessed) / @recency_half_life::float8), 0) AS recency,
         @w_frequency::float8 * ln(1 + coalesce(ac.access_count, 0)) AS frequency,
         ac.last_accessed, coalesce(ac.access_count, 0) AS access_count
  FROM fused_rrf f
  -- Each candidate's row by its key (OFFSET 0 keeps the subquery a probe per candidate):
  -- joined, a generic plan made on small tables read every scope's access rows.
  LEFT JOIN LATERAL (
    SELECT ac.last_accessed, ac.access_count FROM {{recall.memory_access}} ac WHERE ac.memory_id = f.id OFFSET 0
  ) ac ON true
)

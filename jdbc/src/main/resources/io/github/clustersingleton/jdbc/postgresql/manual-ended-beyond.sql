-- The ended run-now requests of job :name beyond the :keep most recent ones.
SELECT request_id
  FROM ${manualRunTable}
 WHERE name = :name
   AND state IN ('succeeded', 'failed')
 ORDER BY finished_at DESC, request_id DESC
 LIMIT 1000 OFFSET :keep

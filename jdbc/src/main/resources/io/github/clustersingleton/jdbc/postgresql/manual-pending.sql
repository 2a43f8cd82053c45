-- The run-now requests of jobs :names that no node has started yet, oldest first.
SELECT name, request_id, requested_by, requested_at, state, owner, fencing_token, finished_at, error
  FROM ${manualRunTable}
 WHERE name IN (:names)
   AND state = 'pending'
 ORDER BY requested_at, request_id

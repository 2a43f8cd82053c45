-- The run-now requests of job :name, newest first, at most :limit.
SELECT name, request_id, requested_by, requested_at, state, owner, fencing_token, finished_at, error
  FROM ${manualRunTable}
 WHERE name = :name
 ORDER BY requested_at DESC, request_id DESC
 LIMIT :limit

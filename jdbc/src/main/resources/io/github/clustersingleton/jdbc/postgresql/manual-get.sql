-- Run-now request :requestId of job :name.
SELECT name, request_id, requested_by, requested_at, state, owner, fencing_token, finished_at, error
  FROM ${manualRunTable}
 WHERE name = :name
   AND request_id = :requestId

-- Store a pending run-now request :requestId of job :name, requested now (the database's
-- clock) by :requestedBy.
INSERT INTO ${manualRunTable} (name, request_id, requested_by, requested_at, state, owner, fencing_token, finished_at, error)
VALUES (:name, :requestId, :requestedBy, UTC_TIMESTAMP(6), 'pending', NULL, 0, NULL, NULL)

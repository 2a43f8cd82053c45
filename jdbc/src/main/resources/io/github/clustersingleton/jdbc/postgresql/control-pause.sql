-- Pause job :name, or every job when :name is :allJobs (a row no job can be named):
-- the row gets who paused it (:pausedBy), when (the database's clock) and why (:reason).
-- A job without a row gets one with an expired lease and fencing token 0, so that its
-- first claim is refused like any other and, once resumed, gets fencing token 1.

INSERT INTO ${table} AS l (name, owner, lease_token, acquired_at, expires_at, fencing_token, paused_at, paused_by,
                           pause_reason)
VALUES (:name, '', '', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 0, CURRENT_TIMESTAMP, :pausedBy, :reason)
    ON CONFLICT (name) DO UPDATE
   SET paused_at = EXCLUDED.paused_at,
       paused_by = EXCLUDED.paused_by,
       pause_reason = EXCLUDED.pause_reason

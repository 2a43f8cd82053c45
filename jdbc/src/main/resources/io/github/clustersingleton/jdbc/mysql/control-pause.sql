-- Pause job :name, or every job when :name is :allJobs (a row no job can be named):
-- the row gets who paused it (:pausedBy), when (the database's clock) and why (:reason).
-- A job without a row gets one with an expired lease and fencing token 0, so that its
-- first claim is refused like any other and, once resumed, gets fencing token 1.

INSERT INTO ${table} (name, owner, lease_token, acquired_at, expires_at, fencing_token, paused_at, paused_by,
                      pause_reason)
VALUES (:name, '', '', UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), 0, UTC_TIMESTAMP(6), :pausedBy, :reason)
    ON DUPLICATE KEY UPDATE
       paused_at = VALUES(paused_at),
       paused_by = VALUES(paused_by),
       pause_reason = VALUES(pause_reason)

-- Pause job :name, or every job when :name is :allJobs (a row no job can be named):
-- the row gets who paused it (:pausedBy), when (the database's clock) and why (:reason).
-- A job without a row gets one with an expired lease and fencing token 0, so that its
-- first claim is refused like any other and, once resumed, gets fencing token 1.

MERGE INTO ${table} l
USING (VALUES (CAST(:name AS VARCHAR(200)), CAST(:pausedBy AS VARCHAR(255)), CAST(:reason AS VARCHAR(500))))
      AS r (name, paused_by, pause_reason)
   ON l.name = r.name
 WHEN MATCHED THEN
      UPDATE SET paused_at = CURRENT_TIMESTAMP, paused_by = r.paused_by, pause_reason = r.pause_reason
 WHEN NOT MATCHED THEN
      INSERT (name, owner, lease_token, acquired_at, expires_at, fencing_token, paused_at, paused_by, pause_reason)
      VALUES (r.name, '', '', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 0, CURRENT_TIMESTAMP, r.paused_by, r.pause_reason)

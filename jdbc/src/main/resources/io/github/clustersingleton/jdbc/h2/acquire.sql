-- Acquire the lease of job :name for :owner, in one statement read through FINAL TABLE,
-- which yields the row only when this statement wrote it.
-- The job's row is inserted on its first acquisition. Afterwards it is taken over only
-- when the lease has expired by the database's clock and the run has no slot or a slot
-- later than the last claimed one; the fencing token then goes up by one.
-- A slot later than the database's clock plus :slotToleranceMillis (the node's clock runs
-- ahead) is refused outright: neither branch of the MERGE applies.
-- A paused job (paused_at on its row) or every job paused (paused_at on the row named
-- :allJobs, which no job can be named) is not claimed: neither branch applies, and
-- select-state.sql reports the claim paused. A claim that overrides the pause
-- (:overridesPause = 1: a run-now request's) is not refused for it.
SELECT fencing_token, CURRENT_TIMESTAMP AS store_time FROM FINAL TABLE (
  MERGE INTO ${table} l
  USING (VALUES (CAST(:name AS VARCHAR(200)), CAST(:owner AS VARCHAR(255)), CAST(:leaseToken AS VARCHAR(64)),
                 CAST(:ttlMillis AS BIGINT), CAST(:slot AS TIMESTAMP WITH TIME ZONE),
                 CAST(:slotToleranceMillis AS BIGINT)))
        AS r (name, owner, lease_token, ttl, slot, tolerance)
     ON l.name = r.name
   WHEN MATCHED
    AND l.expires_at <= CURRENT_TIMESTAMP
    AND (l.paused_at IS NULL OR :overridesPause = 1)
    AND (:overridesPause = 1
          OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL))
    AND (r.slot IS NULL OR l.last_slot IS NULL OR l.last_slot < r.slot)
    AND (r.slot IS NULL OR r.slot <= DATEADD(MILLISECOND, r.tolerance, CURRENT_TIMESTAMP)) THEN
        UPDATE SET owner = r.owner,
                   lease_token = r.lease_token,
                   acquired_at = CURRENT_TIMESTAMP,
                   expires_at = DATEADD(MILLISECOND, r.ttl, CURRENT_TIMESTAMP),
                   last_slot = COALESCE(r.slot, l.last_slot),
                   fencing_token = l.fencing_token + 1
   WHEN NOT MATCHED
    AND (:overridesPause = 1
          OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL))
    AND (r.slot IS NULL OR r.slot <= DATEADD(MILLISECOND, r.tolerance, CURRENT_TIMESTAMP)) THEN
        INSERT (name, owner, lease_token, acquired_at, expires_at, last_slot, fencing_token)
        VALUES (r.name, r.owner, r.lease_token, CURRENT_TIMESTAMP, DATEADD(MILLISECOND, r.ttl, CURRENT_TIMESTAMP),
                r.slot, 1))

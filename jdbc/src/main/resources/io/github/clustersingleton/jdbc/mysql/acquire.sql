-- Acquire the lease of job :name for :owner. MySQL has no RETURNING: the caller reads
-- the row afterwards with select-state.sql, and our lease token in it means we won.
-- The job's row is inserted on its first acquisition. Afterwards it is taken over only
-- when the lease has expired by the database's clock and the run has no slot or a slot
-- later than the last claimed one; the fencing token then goes up by one.
-- A slot later than the database's clock plus :slotToleranceMillis (the node's clock runs
-- ahead) is refused outright: the SELECT yields no row, so nothing is inserted or updated.
--
-- The assignments do not depend on the order in which they are evaluated. MySQL and
-- MariaDB's default evaluate them left to right, each seeing the columns assigned before
-- it; MariaDB's SIMULTANEOUS_ASSIGNMENT mode (part of sql_mode=ORACLE) lets each see the
-- stored row. The first assignment takes the lease when the stored row allows it; every
-- other one tests "the row carries our token (taken by the first assignment, seen in
-- left-to-right order) or the stored row allows taking it (seen with simultaneous
-- assignment)", which is true in both orders exactly when the lease was taken.
-- A paused job (paused_at on its row) or every job paused (paused_at on the row named
-- :allJobs, which no job can be named) is not claimed: the upsert reads the row's latest
-- version under its lock, and takes the lease only while paused_at is NULL; the pause of
-- every job stops the SELECT before anything is inserted: that row is read LOCK IN SHARE
-- MODE, so that a claim that waited for a pause of every job reads it once committed, also
-- under READ COMMITTED (a plain read there would see the row as it was before the pause). select-state.sql then reports the claim paused. A claim that
-- overrides the pause (:overridesPause = 1: a run-now request's) is not refused for it.
INSERT INTO ${table} (name, owner, lease_token, acquired_at, expires_at, last_slot, fencing_token)
SELECT :name, :owner, :leaseToken, UTC_TIMESTAMP(6),
       UTC_TIMESTAMP(6) + INTERVAL :ttlMillis * 1000 MICROSECOND, :slot, 1
  FROM DUAL
 WHERE (:slot IS NULL
        OR :slot <= UTC_TIMESTAMP(6) + INTERVAL :slotToleranceMillis * 1000 MICROSECOND)
   AND (:overridesPause = 1
          OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL
                      LOCK IN SHARE MODE))
    ON DUPLICATE KEY UPDATE
       lease_token = IF(expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                        AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot)),
                        VALUES(lease_token), lease_token),
       owner = IF(lease_token = VALUES(lease_token)
                  OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                      AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))),
                  VALUES(owner), owner),
       acquired_at = IF(lease_token = VALUES(lease_token)
                        OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                            AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))),
                        VALUES(acquired_at), acquired_at),
       fencing_token = IF(lease_token = VALUES(lease_token)
                          OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                              AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))),
                          fencing_token + 1, fencing_token),
       last_slot = IF(lease_token = VALUES(lease_token)
                      OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                          AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))),
                      COALESCE(VALUES(last_slot), last_slot), last_slot),
       expires_at = IF(lease_token = VALUES(lease_token)
                       OR (expires_at <= UTC_TIMESTAMP(6) AND (paused_at IS NULL OR :overridesPause = 1)
                           AND (VALUES(last_slot) IS NULL OR last_slot IS NULL OR last_slot < VALUES(last_slot))),
                       VALUES(expires_at), expires_at)

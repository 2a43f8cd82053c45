-- Acquire the lease of job :name for :owner, in one statement.
-- The job's row is inserted on its first acquisition. Afterwards it is taken over only
-- when the lease has expired by the database's clock and the run has no slot or a slot
-- later than the last claimed one; the fencing token then goes up by one.
-- A slot later than the database's clock plus :slotToleranceMillis (the node's clock runs
-- ahead) is refused outright: the SELECT yields no row, so nothing is inserted or updated.
-- Returns one row: acquired = 1 with the fencing token when the lease was acquired, else
-- acquired = 0 with the row's holder and last slot, read in the same round trip. A refused
-- claim (refused) reads the row FOR SHARE, which in READ COMMITTED sees it as the claim saw
-- it, a concurrent winner's commit after this statement began included (the row's update
-- chain), and the database's clock after any wait for the row lock (clock_timestamp()). A
-- slot ahead of the clock (skewed) locks nothing: it reads the row, if any, as of the
-- statement's start. No row at all only when the job's first insert is another
-- transaction's, still invisible here: then select-state.sql tells why.
-- A paused job (paused_at on its row) or every job paused (paused_at on the row named
-- :allJobs, which no job can be named) is not claimed: the row's pause is re-checked by the
-- ON CONFLICT clause on the row's latest version after any wait for its lock, and the
-- pause of every job stops the SELECT before anything is inserted or locked. A refused
-- claim reports paused = 1 and changes nothing. A claim that overrides the pause
-- (:overridesPause = 1: a run-now request's) is not refused for it.
WITH claim AS (
  INSERT INTO ${table} AS l (name, owner, lease_token, acquired_at, expires_at, last_slot, fencing_token)
  SELECT :name, :owner, :leaseToken, CURRENT_TIMESTAMP,
         CURRENT_TIMESTAMP + :ttlMillis * INTERVAL '1 millisecond', CAST(:slot AS TIMESTAMP WITH TIME ZONE), 1
   WHERE (CAST(:slot AS TIMESTAMP WITH TIME ZONE) IS NULL
          OR CAST(:slot AS TIMESTAMP WITH TIME ZONE)
             <= CURRENT_TIMESTAMP + :slotToleranceMillis * INTERVAL '1 millisecond')
     AND (:overridesPause = 1
          OR NOT EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL))
      ON CONFLICT (name) DO UPDATE
     SET owner = EXCLUDED.owner,
         lease_token = EXCLUDED.lease_token,
         acquired_at = EXCLUDED.acquired_at,
         expires_at = EXCLUDED.expires_at,
         last_slot = COALESCE(EXCLUDED.last_slot, l.last_slot),
         fencing_token = l.fencing_token + 1
   WHERE l.expires_at <= CURRENT_TIMESTAMP
     AND (l.paused_at IS NULL OR :overridesPause = 1)
     AND (EXCLUDED.last_slot IS NULL OR l.last_slot IS NULL OR l.last_slot < EXCLUDED.last_slot)
  RETURNING fencing_token
), refused AS (
SELECT r.owner, r.last_slot, CASE WHEN r.paused_at IS NOT NULL OR EXISTS (SELECT 1 FROM ${table} m WHERE m.name = :allJobs AND m.paused_at IS NOT NULL) THEN 1 ELSE 0 END AS paused
  FROM ${table} r
 WHERE r.name = :name
   AND NOT EXISTS (SELECT 1 FROM claim)
   AND (CAST(:slot AS TIMESTAMP WITH TIME ZONE) IS NULL
        OR CAST(:slot AS TIMESTAMP WITH TIME ZONE)
           <= CURRENT_TIMESTAMP + :slotToleranceMillis * INTERVAL '1 millisecond')
   FOR SHARE
), skewed AS (
SELECT r.owner, r.last_slot, 0 AS paused
  FROM (SELECT 1) t
  LEFT JOIN ${table} r ON r.name = :name
 WHERE CAST(:slot AS TIMESTAMP WITH TIME ZONE)
       > CURRENT_TIMESTAMP + :slotToleranceMillis * INTERVAL '1 millisecond'
)
SELECT 1 AS acquired, c.fencing_token, CAST(NULL AS VARCHAR(255)) AS owner,
       CAST(NULL AS TIMESTAMP WITH TIME ZONE) AS last_slot, CURRENT_TIMESTAMP AS store_time, 0 AS paused
  FROM claim c
 UNION ALL
SELECT 0, CAST(NULL AS BIGINT), f.owner, f.last_slot, clock_timestamp(), f.paused
  FROM refused f
 UNION ALL
SELECT 0, CAST(NULL AS BIGINT), s.owner, s.last_slot, CURRENT_TIMESTAMP, s.paused
  FROM skewed s

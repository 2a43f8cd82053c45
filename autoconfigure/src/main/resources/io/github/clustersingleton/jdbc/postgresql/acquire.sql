-- Acquire the lease of job :name for :owner, in one statement.
-- The job's row is inserted on its first acquisition. Afterwards it is taken over only
-- when the lease has expired by the database's clock and the run has no slot or a slot
-- later than the last claimed one; the fencing token then goes up by one.
-- A slot later than the database's clock plus :slotToleranceMillis (the node's clock runs
-- ahead) is refused outright: the SELECT yields no row, so nothing is inserted or updated.
-- Returns one row when the lease was acquired, none otherwise.
INSERT INTO ${table} AS l (name, owner, lease_token, acquired_at, expires_at, last_slot, fencing_token)
SELECT :name, :owner, :leaseToken, CURRENT_TIMESTAMP,
       CURRENT_TIMESTAMP + :ttlMillis * INTERVAL '1 millisecond', CAST(:slot AS TIMESTAMP WITH TIME ZONE), 1
 WHERE CAST(:slot AS TIMESTAMP WITH TIME ZONE) IS NULL
    OR CAST(:slot AS TIMESTAMP WITH TIME ZONE)
       <= CURRENT_TIMESTAMP + :slotToleranceMillis * INTERVAL '1 millisecond'
    ON CONFLICT (name) DO UPDATE
   SET owner = EXCLUDED.owner,
       lease_token = EXCLUDED.lease_token,
       acquired_at = EXCLUDED.acquired_at,
       expires_at = EXCLUDED.expires_at,
       last_slot = COALESCE(EXCLUDED.last_slot, l.last_slot),
       fencing_token = l.fencing_token + 1
 WHERE l.expires_at <= CURRENT_TIMESTAMP
   AND (EXCLUDED.last_slot IS NULL OR l.last_slot IS NULL OR l.last_slot < EXCLUDED.last_slot)
RETURNING fencing_token, CURRENT_TIMESTAMP AS store_time

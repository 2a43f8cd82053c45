-- Record how the run of job :name under lease token :leaseToken ended, and release its lease
-- as release.sql does if it is still live: run_state becomes :runState ('succeeded' or
-- 'failed'); a failed run may be claimed again from :retryDelayMillis after now (the
-- database's clock); a recovery mark (recover_at) is cleared.
-- The run is recorded as long as the row still carries the run's token (or the token a
-- release of it left, :releasedToken, so that a retry after a lost reply is recorded again),
-- even after the lease expired: no other claim has taken the job since. Only the run whose
-- fencing token is :fencingToken is recorded: when the row has moved on to a later run under
-- the same lease token (start-run.sql, whose answer the caller may not have seen), the run
-- fields stay as they are (that start already ended this run, and the later run must not be
-- recorded as ended by this one's completion), the lease is still released, and the
-- statement still matches the row (no change of owner). Once another claim has, no row
-- changes and the completion is superseded.
UPDATE ${table}
   SET expires_at = CASE WHEN lease_token = :leaseToken AND expires_at > CURRENT_TIMESTAMP
                         THEN GREATEST(DATEADD(MILLISECOND, CAST(:lockAtLeastForMillis AS BIGINT), acquired_at),
                                       CURRENT_TIMESTAMP)
                         ELSE expires_at END,
       lease_token = :releasedToken,
       run_state = CASE WHEN fencing_token = :fencingToken THEN CAST(:runState AS VARCHAR(16))
                        ELSE run_state END,
       retry_at = CASE WHEN fencing_token <> :fencingToken THEN retry_at
                       WHEN CAST(:runState AS VARCHAR(16)) = 'failed'
                       THEN DATEADD(MILLISECOND, CAST(:retryDelayMillis AS BIGINT), CURRENT_TIMESTAMP) END,
       recover_at = CASE WHEN fencing_token = :fencingToken THEN NULL ELSE recover_at END
 WHERE name = :name
   AND lease_token IN (:leaseToken, :releasedToken)

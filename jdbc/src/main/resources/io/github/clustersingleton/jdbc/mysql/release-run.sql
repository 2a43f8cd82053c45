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
-- matches and the completion is superseded.
-- (expires_at is assigned first and is the only assignment that reads a column another one
-- writes; fencing_token, which the others read, is not written: so the order in which the
-- server evaluates them does not matter.)
UPDATE ${table}
   SET expires_at = IF(lease_token = :leaseToken AND expires_at > UTC_TIMESTAMP(6),
                       GREATEST(acquired_at + INTERVAL :lockAtLeastForMillis * 1000 MICROSECOND, UTC_TIMESTAMP(6)),
                       expires_at),
       lease_token = :releasedToken,
       run_state = IF(fencing_token = :fencingToken, :runState, run_state),
       retry_at = IF(fencing_token = :fencingToken,
                     IF(:runState = 'failed',
                        UTC_TIMESTAMP(6) + INTERVAL :retryDelayMillis * 1000 MICROSECOND, NULL),
                     retry_at),
       recover_at = IF(fencing_token = :fencingToken, NULL, recover_at)
 WHERE name = :name
   AND lease_token IN (:leaseToken, :releasedToken)

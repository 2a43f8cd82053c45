-- Release a lease that still carries our token, as release.sql does, and record how its
-- run ended: run_state becomes :runState ('succeeded' or 'failed'); a failed run may be
-- claimed again from :retryDelayMillis after now (the database's clock).
-- (The assignments read no column that another one writes.)
UPDATE ${table}
   SET expires_at = GREATEST(acquired_at + INTERVAL :lockAtLeastForMillis * 1000 MICROSECOND, UTC_TIMESTAMP(6)),
       lease_token = :releasedToken,
       run_state = :runState,
       retry_at = IF(:runState = 'failed',
                     UTC_TIMESTAMP(6) + INTERVAL :retryDelayMillis * 1000 MICROSECOND, NULL)
 WHERE name = :name
   AND lease_token = :leaseToken
   AND expires_at > UTC_TIMESTAMP(6)

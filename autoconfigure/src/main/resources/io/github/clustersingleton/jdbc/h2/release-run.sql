-- Release a lease that still carries our token, as release.sql does, and record how its
-- run ended: run_state becomes :runState ('succeeded' or 'failed'); a failed run may be
-- claimed again from :retryDelayMillis after now (the database's clock).
UPDATE ${table}
   SET expires_at = GREATEST(DATEADD(MILLISECOND, CAST(:lockAtLeastForMillis AS BIGINT), acquired_at), CURRENT_TIMESTAMP),
       lease_token = :releasedToken,
       run_state = CAST(:runState AS VARCHAR(16)),
       retry_at = CASE WHEN CAST(:runState AS VARCHAR(16)) = 'failed'
                       THEN DATEADD(MILLISECOND, CAST(:retryDelayMillis AS BIGINT), CURRENT_TIMESTAMP) END
 WHERE name = :name
   AND lease_token = :leaseToken
   AND expires_at > CURRENT_TIMESTAMP

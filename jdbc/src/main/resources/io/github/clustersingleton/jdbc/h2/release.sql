-- Release a lease that still carries our token: it expires now, or at acquisition plus
-- :lockAtLeastForMillis when that is later. The token is replaced by :releasedToken, so a
-- renewal sent before the release cannot extend the lease again. The row keeps its
-- fencing token and last slot.
UPDATE ${table}
   SET expires_at = GREATEST(DATEADD(MILLISECOND, CAST(:lockAtLeastForMillis AS BIGINT), acquired_at), CURRENT_TIMESTAMP),
       lease_token = :releasedToken
 WHERE name = :name
   AND lease_token = :leaseToken
   AND expires_at > CURRENT_TIMESTAMP

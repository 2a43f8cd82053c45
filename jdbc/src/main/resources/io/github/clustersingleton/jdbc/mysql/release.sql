-- Release a lease that still carries our token: it expires now, or at acquisition plus
-- :lockAtLeastForMillis when that is later. The token is replaced by :releasedToken, so a
-- renewal sent before the release cannot extend the lease again. The row keeps its
-- fencing token and last slot. (Both assignments read no column the other writes.)
UPDATE ${table}
   SET expires_at = GREATEST(acquired_at + INTERVAL :lockAtLeastForMillis * 1000 MICROSECOND, UTC_TIMESTAMP(6)),
       lease_token = :releasedToken
 WHERE name = :name
   AND lease_token = :leaseToken
   AND expires_at > UTC_TIMESTAMP(6)

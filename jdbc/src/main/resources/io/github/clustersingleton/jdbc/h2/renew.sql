-- Renew every lease this node holds, in one statement: extend each row that still carries
-- one of our lease tokens and has not expired by the database's clock. :names and
-- :leaseTokens list the same leases; lease tokens are random per acquisition, so a row
-- whose token is in the list is that token's job. When fewer rows changed than leases
-- were sent, select-live.sql tells which ones.
-- A renewed lease is live again: a recovery mark that another node wrote while this renewal
-- waited for a row lock (the lease had expired meanwhile) is cleared, so that a later expiry
-- starts a new mark and grace instead of allowing a takeover at once.
UPDATE ${table}
   SET expires_at = DATEADD(MILLISECOND, CAST(:ttlMillis AS BIGINT), CURRENT_TIMESTAMP),
       recover_at = NULL
 WHERE name IN (:names)
   AND lease_token IN (:leaseTokens)
   AND expires_at > CURRENT_TIMESTAMP

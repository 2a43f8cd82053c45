-- Write or renew this node's presence row :name (a name no job can have: it starts with a
-- blank), held by :owner until :ttlMillis from now by the database's clock.
INSERT INTO ${table} (name, owner, lease_token, acquired_at, expires_at, fencing_token)
VALUES (:name, :owner, '', UTC_TIMESTAMP(6), UTC_TIMESTAMP(6) + INTERVAL :ttlMillis * 1000 MICROSECOND, 0)
    ON DUPLICATE KEY UPDATE
       owner = VALUES(owner),
       expires_at = VALUES(expires_at)

-- Write or renew this node's presence row :name (a name no job can have: it starts with a
-- blank), held by :owner until :ttlMillis from now by the database's clock.
INSERT INTO ${table} AS l (name, owner, lease_token, acquired_at, expires_at, fencing_token)
VALUES (:name, :owner, '', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP + :ttlMillis * INTERVAL '1 millisecond', 0)
    ON CONFLICT (name) DO UPDATE
   SET owner = EXCLUDED.owner,
       expires_at = EXCLUDED.expires_at

-- Write or renew this node's presence row :name (a name no job can have: it starts with a
-- blank), held by :owner until :ttlMillis from now by the database's clock.
MERGE INTO ${table} l
USING (VALUES (CAST(:name AS VARCHAR(200)), CAST(:owner AS VARCHAR(255)))) AS r (name, owner)
   ON l.name = r.name
 WHEN MATCHED THEN
      UPDATE SET owner = r.owner, expires_at = DATEADD(MILLISECOND, CAST(:ttlMillis AS BIGINT), CURRENT_TIMESTAMP)
 WHEN NOT MATCHED THEN
      INSERT (name, owner, lease_token, acquired_at, expires_at, fencing_token)
      VALUES (r.name, r.owner, '', CURRENT_TIMESTAMP,
              DATEADD(MILLISECOND, CAST(:ttlMillis AS BIGINT), CURRENT_TIMESTAMP), 0)

-- Store job :name's cron override (:cron), or clear it (NULL). A job without a row gets
-- one with an expired lease and fencing token 0.

MERGE INTO ${table} l
USING (VALUES (CAST(:name AS VARCHAR(200)), CAST(:cron AS VARCHAR(255)))) AS r (name, cron_override)
   ON l.name = r.name
 WHEN MATCHED THEN
      UPDATE SET cron_override = r.cron_override
 WHEN NOT MATCHED THEN
      INSERT (name, owner, lease_token, acquired_at, expires_at, fencing_token, cron_override)
      VALUES (r.name, '', '', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 0, r.cron_override)

-- Store job :name's cron override (:cron), or clear it (NULL). A job without a row gets
-- one with an expired lease and fencing token 0.

INSERT INTO ${table} AS l (name, owner, lease_token, acquired_at, expires_at, fencing_token, cron_override)
VALUES (:name, '', '', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 0, :cron)
    ON CONFLICT (name) DO UPDATE
   SET cron_override = EXCLUDED.cron_override

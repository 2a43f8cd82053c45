-- Store job :name's cron override (:cron), or clear it (NULL). A job without a row gets
-- one with an expired lease and fencing token 0.

INSERT INTO ${table} (name, owner, lease_token, acquired_at, expires_at, fencing_token, cron_override)
VALUES (:name, '', '', UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), 0, :cron)
    ON DUPLICATE KEY UPDATE
       cron_override = VALUES(cron_override)

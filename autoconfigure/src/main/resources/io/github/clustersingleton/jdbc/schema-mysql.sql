-- Times are UTC: written and compared with UTC_TIMESTAMP(6), never the session time zone.
-- Job names compare case-sensitively, as on the other databases.
CREATE TABLE IF NOT EXISTS cluster_singleton_lease (
	name VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
	owner VARCHAR(255) NOT NULL,
	lease_token VARCHAR(64) NOT NULL,
	acquired_at DATETIME(6) NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	last_slot DATETIME(6) NULL,
	fencing_token BIGINT NOT NULL
) ENGINE = InnoDB;

-- cluster-singleton: the lease table and the run ledger (mysql).
-- Same tables as schema-mysql.sql in the cluster-singleton jar; run with
-- cluster-singleton.jdbc.initialize-schema=never. Rename V1 to fit your own migrations.
CREATE TABLE cluster_singleton_lease (
	name VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
	owner VARCHAR(255) NOT NULL,
	lease_token VARCHAR(64) NOT NULL,
	acquired_at DATETIME(6) NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	last_slot DATETIME(6) NULL,
	fencing_token BIGINT NOT NULL,
	run_slot DATETIME(6) NULL,
	attempt INT NULL,
	run_state VARCHAR(16) NULL,
	retry_at DATETIME(6) NULL,
	recover_at DATETIME(6) NULL,
	paused_at DATETIME(6) NULL,
	paused_by VARCHAR(255) NULL,
	pause_reason VARCHAR(500) NULL,
	cron_override VARCHAR(255) NULL
) ENGINE = InnoDB;

-- The run ledger: one record per run (attempt) of a job, keyed by job and fencing token.
CREATE TABLE cluster_singleton_run (
	name VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	fencing_token BIGINT NOT NULL,
	slot DATETIME(6) NULL,
	attempt INT NOT NULL,
	owner VARCHAR(255) NOT NULL,
	run_trigger VARCHAR(16) NOT NULL,
	state VARCHAR(16) NOT NULL,
	started_at DATETIME(6) NOT NULL,
	finished_at DATETIME(6) NULL,
	error VARCHAR(500) NULL,
	PRIMARY KEY (name, fencing_token)
) ENGINE = InnoDB;

-- Run-now requests: pending, running and the most recent ended ones of each job.
CREATE TABLE cluster_singleton_manual_run (
	name VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	request_id VARCHAR(64) NOT NULL,
	requested_by VARCHAR(255) NOT NULL,
	requested_at DATETIME(6) NOT NULL,
	state VARCHAR(16) NOT NULL,
	owner VARCHAR(255) NULL,
	fencing_token BIGINT NOT NULL,
	finished_at DATETIME(6) NULL,
	error VARCHAR(500) NULL,
	PRIMARY KEY (name, request_id)
) ENGINE = InnoDB;

-- cluster-singleton: the lease table and the run ledger (h2).
-- Same tables as schema-h2.sql in the cluster-singleton jar; run with
-- cluster-singleton.jdbc.initialize-schema=never. Rename V1 to fit your own migrations.
CREATE TABLE cluster_singleton_lease (
	name VARCHAR(200) NOT NULL PRIMARY KEY,
	owner VARCHAR(255) NOT NULL,
	lease_token VARCHAR(64) NOT NULL,
	acquired_at TIMESTAMP WITH TIME ZONE NOT NULL,
	expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
	last_slot TIMESTAMP WITH TIME ZONE,
	fencing_token BIGINT NOT NULL,
	run_slot TIMESTAMP WITH TIME ZONE,
	attempt INT,
	run_state VARCHAR(16),
	retry_at TIMESTAMP WITH TIME ZONE,
	recover_at TIMESTAMP WITH TIME ZONE,
	paused_at TIMESTAMP WITH TIME ZONE,
	paused_by VARCHAR(255),
	pause_reason VARCHAR(500),
	cron_override VARCHAR(255)
);

-- The run ledger: one record per run (attempt) of a job, keyed by job and fencing token.
CREATE TABLE cluster_singleton_run (
	name VARCHAR(200) NOT NULL,
	fencing_token BIGINT NOT NULL,
	slot TIMESTAMP WITH TIME ZONE,
	attempt INT NOT NULL,
	owner VARCHAR(255) NOT NULL,
	run_trigger VARCHAR(16) NOT NULL,
	state VARCHAR(16) NOT NULL,
	started_at TIMESTAMP WITH TIME ZONE NOT NULL,
	finished_at TIMESTAMP WITH TIME ZONE,
	error VARCHAR(500),
	PRIMARY KEY (name, fencing_token)
);

-- Run-now requests: pending, running and the most recent ended ones of each job.
CREATE TABLE cluster_singleton_manual_run (
	name VARCHAR(200) NOT NULL,
	request_id VARCHAR(64) NOT NULL,
	requested_by VARCHAR(255) NOT NULL,
	requested_at TIMESTAMP WITH TIME ZONE NOT NULL,
	state VARCHAR(16) NOT NULL,
	owner VARCHAR(255),
	fencing_token BIGINT NOT NULL,
	finished_at TIMESTAMP WITH TIME ZONE,
	error VARCHAR(500),
	PRIMARY KEY (name, request_id)
);

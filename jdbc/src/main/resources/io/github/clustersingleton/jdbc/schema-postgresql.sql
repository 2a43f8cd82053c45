CREATE TABLE IF NOT EXISTS cluster_singleton_lease (
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
	recover_at TIMESTAMP WITH TIME ZONE
);

-- The run ledger: one record per run (attempt) of a job, keyed by job and fencing token.
CREATE TABLE IF NOT EXISTS cluster_singleton_run (
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

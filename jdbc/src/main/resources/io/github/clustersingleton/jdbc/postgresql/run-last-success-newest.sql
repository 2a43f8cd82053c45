-- Run ledger: when each of jobs :names last ended a run successfully, as far as their eight
-- newest records (by fencing token, backwards along the primary key) tell: the latest end
-- among those that succeeded. A job none of them succeeded comes back without an end, and
-- run-last-success.sql reads the rest of its ledger. Reading every record of every job costs
-- a heap page per record once the ledger is full (each record is written twice: at its start
-- and its end); this reads eight per job, and its estimated cost stays below the one at which
-- PostgreSQL compiles a statement (JIT) for a thousand jobs.
SELECT n.name,
       (SELECT MAX(newest.finished_at)
          FROM (SELECT r.state, r.finished_at
                  FROM ${runTable} r
                 WHERE r.name = n.name
                 ORDER BY r.fencing_token DESC
                 LIMIT 8) newest
         WHERE newest.state = 'succeeded') AS finished_at
  FROM unnest(CAST(ARRAY[:names] AS VARCHAR[])) n(name)

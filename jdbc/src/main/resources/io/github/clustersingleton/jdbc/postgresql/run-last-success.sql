-- Run ledger: when each of jobs :names last ended a run successfully.
-- A job's newest records (by fencing token, backwards along the primary key) nearly always
-- hold its latest success, so only they are read; the job's whole ledger is read only when
-- none of them succeeded. Reading every record of every job instead costs a heap page per
-- record once the ledger is full (each record is written twice: at its start and its end).
SELECT n.name,
       COALESCE(
         (SELECT MAX(newest.finished_at)
            FROM (SELECT r.state, r.finished_at
                    FROM ${runTable} r
                   WHERE r.name = n.name
                   ORDER BY r.fencing_token DESC
                   LIMIT 8) newest
           WHERE newest.state = 'succeeded'),
         (SELECT MAX(r.finished_at)
            FROM ${runTable} r
           WHERE r.name = n.name
             AND r.state = 'succeeded')) AS finished_at
  FROM unnest(CAST(ARRAY[:names] AS VARCHAR[])) n(name)

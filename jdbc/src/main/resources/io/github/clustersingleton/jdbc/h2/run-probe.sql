-- Shows that the run table exists; returns no row.
SELECT 1 FROM ${runTable} WHERE 1 = 0

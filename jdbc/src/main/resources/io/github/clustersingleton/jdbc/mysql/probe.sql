-- Shows that the database answers and the table exists; returns no row.
SELECT 1 FROM ${table} WHERE 1 = 0

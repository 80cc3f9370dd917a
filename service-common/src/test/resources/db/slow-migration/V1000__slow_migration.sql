-- A migration that takes its time, as one building an index on a large table would.
SELECT pg_sleep(2);

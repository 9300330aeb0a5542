-- the request log keeps two indexes, not three: its primary key (the explorer's newest-first
-- pages, the pruning by count) and `at` (time ranges, the pruning by age). an index on
-- request_id put each of the log's rows at a random place of a b-tree: half of what postgres
-- spent on the log per request (4.3 against 2.0 microseconds per row, 20,000 rows inserted into
-- 200,000). a look-up by request id walks the newest rows first, as the explorer's other filters
-- do, and a request's page looks for the same id within an hour of it.
drop index if exists _studio.request_log_request_id_idx;

-- Issue #12: a memory bound per request. Each sort or hash step of a request's plan may use up to
-- work_mem (hashes twice that, hash_mem_multiplier) before spilling to disk; the server applies a
-- role's work_mem in each request of that role, as it does its statement_timeout.
alter role anon set work_mem = '2MB';
alter role authenticated set work_mem = '4MB';

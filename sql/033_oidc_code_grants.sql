-- The code exchange takes its code in one statement (issue 39,
-- docs/decisions.md "Issue 39: one statement for the code exchange"): the
-- token endpoint deletes the code and reads it, its session and its user
-- with DELETE ... RETURNING, so a spent code leaves no row. The grant a
-- code opened keeps the code's SHA-256 hex instead, and a code that comes
-- back is looked up here to end what its first use issued
-- (RFC 6749 4.1.2). NULL for grants from before this migration, whose codes
-- expired long ago. svc_oauth_codes.used_at stays, always NULL now: dropping
-- a column copies the table.
ALTER TABLE svc_oauth_grants
  ADD COLUMN IF NOT EXISTS code_hash CHAR(64) NULL DEFAULT NULL, ALGORITHM=INSTANT;
ALTER TABLE svc_oauth_grants
  ADD UNIQUE KEY IF NOT EXISTS ux_svc_oauth_grants_code (code_hash), ALGORITHM=INPLACE, LOCK=NONE;

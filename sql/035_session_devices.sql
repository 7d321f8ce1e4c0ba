-- The device a session was opened on (issue 48, docs/decisions.md "Issue
-- 48: devices are known by a cookie"): SHA-256 hex of the sign-in's
-- svc_device cookie, which svc sets on a sign-in reply. The new-device mail
-- asks whether one of the user's sessions was opened on it, no longer
-- whether one showed the same User-Agent text (which anyone can copy).
-- '' for sessions from before this migration: no device equals it, so each
-- user's first sign-in after it counts as a new device once.
ALTER TABLE svc_sessions
  ADD COLUMN IF NOT EXISTS device_key CHAR(64) NOT NULL DEFAULT '', ALGORITHM=INSTANT;

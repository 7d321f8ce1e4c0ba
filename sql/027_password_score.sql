-- The per-site minimum zxcvbn score of a new password (issue 41,
-- docs/decisions.md "Issue 41: the zxcvbn score"): svc-admin site set
-- --min-password-score 0..4. 0, the default, is off; 1..4: sign-up, reset
-- and change refuse a password scoring lower (requirements.strongEnough).
ALTER TABLE svc_sites
  ADD COLUMN IF NOT EXISTS min_password_score TINYINT NOT NULL DEFAULT 0, ALGORITHM=INSTANT;

-- E-mail as identity (issue 26, docs/decisions.md "E-mail codes and
-- verified addresses"): sign-in codes by e-mail, verified addresses, sites
-- that require them. Times in the new tables are unix seconds. Every ALTER
-- states its algorithm and lock: none of them may block a live table.

-- When the user proved the address (a verification link, an e-mail code
-- sign-in or a password reset); NULL = not yet. Only svc_users is altered
-- here: a migration cannot know the other tables of [auth] tables, which
-- the operator made "with the same columns". Their owner adds the column
-- the same way (docs/operations.md "Verified addresses"); until then their
-- users read as unverified.
ALTER TABLE svc_users
  ADD COLUMN IF NOT EXISTS email_verified_at TIMESTAMP NULL DEFAULT NULL,
  ALGORITHM=INSTANT;

-- svc-admin site set --verify-email: a password login of an unverified
-- address is refused (403 Email not verified), and sign-up mails a link.
ALTER TABLE svc_sites
  ADD COLUMN IF NOT EXISTS verify_email TINYINT(1) NOT NULL DEFAULT 0,
  ALGORITHM=INSTANT;

-- The current sign-in code of a user, as svc_sms_codes: only an HMAC of the
-- code is stored; 10 minutes, 5 tries, one new code per 60 s.
CREATE TABLE IF NOT EXISTS svc_email_codes (
  user_id     BIGINT UNSIGNED NOT NULL,
  auth_table  VARCHAR(64)   NOT NULL,
  code_hash   VARBINARY(64) NOT NULL,
  expires_at  BIGINT        NOT NULL,
  attempts    INT UNSIGNED  NOT NULL DEFAULT 0,
  spent       TINYINT(1)    NOT NULL DEFAULT 0,
  created_at  BIGINT        NOT NULL,
  PRIMARY KEY (user_id, auth_table)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Per-user caps over a rolling 24 h on codes sent and wrong guesses, as
-- svc_sms_events (sql/009).
CREATE TABLE IF NOT EXISTS svc_email_code_events (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  user_id     BIGINT UNSIGNED NOT NULL,
  auth_table  VARCHAR(64)  NOT NULL,
  kind        VARCHAR(8)   NOT NULL,
  happened_at BIGINT       NOT NULL,
  KEY ix_svc_email_code_events_user (user_id, auth_table, kind, happened_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The factor that earned an mfa_token ("pwd" or "otp" for an e-mail code),
-- so the session's amr names what was really used.
ALTER TABLE svc_mfa_challenges
  ADD COLUMN IF NOT EXISTS first_factor VARCHAR(8) NOT NULL DEFAULT 'pwd',
  ALGORITHM=INSTANT;

-- Second factor: TOTP and recovery codes (issue 24, docs/decisions.md
-- "Second factor: TOTP and recovery codes"). Times are unix seconds. Every
-- row belongs to one user of one auth table (auth_table, user_id), as the
-- login throttle and SMS codes do.

-- One TOTP factor per user. The secret is sealed with [keys] mfa_key
-- (XChaCha20-Poly1305, "<auth_table>:<user_id>" as associated data).
-- confirmed_at NULL: set up but not yet confirmed with a first code (it does
-- not guard the login). last_step: the newest RFC 6238 time step accepted;
-- a code is accepted only by the one UPDATE that raises it, so a step is
-- never accepted twice (replay, concurrent verifies).
CREATE TABLE IF NOT EXISTS svc_mfa_factors (
  auth_table     VARCHAR(64)   NOT NULL,
  user_id        BIGINT UNSIGNED NOT NULL,
  secret_sealed  VARCHAR(255)  NOT NULL,
  created_at     BIGINT        NOT NULL,
  confirmed_at   BIGINT        NULL,
  last_step      BIGINT        NOT NULL DEFAULT 0,
  PRIMARY KEY (auth_table, user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Recovery codes: only HMAC-SHA256 under a key derived from [keys] mfa_key
-- is stored (hex). used_at set = spent. A new set deletes the old one.
CREATE TABLE IF NOT EXISTS svc_mfa_recovery_codes (
  auth_table  VARCHAR(64)     NOT NULL,
  user_id     BIGINT UNSIGNED NOT NULL,
  code_hash   CHAR(64)        NOT NULL,
  created_at  BIGINT          NOT NULL,
  used_at     BIGINT          NULL,
  PRIMARY KEY (auth_table, user_id, code_hash)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The second step of a login: the mfa_token a right password earns is
-- random; only its SHA-256 (hex) is stored. Bound to the user, its table and
-- the site; lives 5 minutes and allows 5 tries (attempts counted before a
-- code is looked at); spent once a code is accepted. Shared by every worker
-- on every host.
CREATE TABLE IF NOT EXISTS svc_mfa_challenges (
  token_hash  CHAR(64)        NOT NULL PRIMARY KEY,
  auth_table  VARCHAR(64)     NOT NULL,
  user_id     BIGINT UNSIGNED NOT NULL,
  site_id     BIGINT          NOT NULL DEFAULT 0,
  expires_at  BIGINT          NOT NULL,
  attempts    INT             NOT NULL DEFAULT 0,
  spent       TINYINT         NOT NULL DEFAULT 0,
  KEY ix_svc_mfa_challenges_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

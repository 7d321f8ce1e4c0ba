-- Server-side sessions (docs/decisions.md "Sessions"). Times are unix
-- seconds. A new table only: no ALTER of an existing one.
--
-- One row per sign-in (sign-up, password, second factor, e-mail code,
-- passkey). id: 16 random bytes, base64url (22 characters), the `sid` of the
-- session's tokens. generation: how many times its refresh token rotated; a
-- refresh token carries the generation that issued it (`gen`), and only the
-- one UPDATE that moves generation from that value on may rotate it, so two
-- hosts refreshing the same token cannot both win. rotated_at: when the
-- current generation began (the previous token is accepted for [tokens]
-- refresh_reuse_seconds after it). expires_at: the current refresh token's
-- exp. revoked_at / revoked_reason: set once, never cleared ('sign_out',
-- 'reuse', 'password_reset', 'operator', ...). legacy_jti: the jti of a
-- refresh token from before sessions that opened this one on its first
-- refresh, so that token opens one session only. amr: the sign-in's
-- methods, space-separated. not_me_at: when the "this wasn't me" link of
-- the new-device mail about this session's sign-in was used (POST
-- /auth/sessions/not-me): set once by a conditional UPDATE, so the link is
-- spent once.
CREATE TABLE IF NOT EXISTS svc_sessions (
  id              CHAR(22)        NOT NULL PRIMARY KEY,
  site_id         BIGINT          NOT NULL DEFAULT 0,
  auth_table      VARCHAR(64)     NOT NULL,
  user_id         BIGINT UNSIGNED NOT NULL,
  generation      BIGINT          NOT NULL DEFAULT 1,
  created_at      BIGINT          NOT NULL,
  last_seen_at    BIGINT          NOT NULL,
  rotated_at      BIGINT          NOT NULL,
  expires_at      BIGINT          NOT NULL,
  auth_time       BIGINT          NOT NULL,
  amr             VARCHAR(64)     NOT NULL DEFAULT '',
  ip              VARCHAR(45)     NOT NULL DEFAULT '',
  user_agent      VARCHAR(255)    NOT NULL DEFAULT '',
  revoked_at      BIGINT          NULL,
  revoked_reason  VARCHAR(32)     NOT NULL DEFAULT '',
  legacy_jti      VARCHAR(64)     NULL,
  not_me_at       BIGINT          NULL,
  UNIQUE KEY ux_svc_sessions_legacy_jti (legacy_jti),
  KEY ix_svc_sessions_user (auth_table, user_id),
  KEY ix_svc_sessions_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- site set --new-device-mail on|off: mail the user when a sign-in comes from
-- a device their sessions have not shown in 90 days (template new-sign-in).
ALTER TABLE svc_sites
  ADD COLUMN IF NOT EXISTS new_device_mail TINYINT NOT NULL DEFAULT 0, ALGORITHM=INSTANT;

-- Passkeys (WebAuthn Level 3; docs/decisions.md "Passkeys"). Times are unix
-- seconds. New tables only: no ALTER of an existing one.

-- The relying party of a site (svc-admin site set --rp-id --origins): a site
-- without a row here answers the passkey routes with 400. origins: the
-- allowed clientDataJSON origins, space-separated.
CREATE TABLE IF NOT EXISTS svc_site_passkey_rp (
  site_id  BIGINT        NOT NULL PRIMARY KEY,
  rp_id    VARCHAR(253)  NOT NULL,
  origins  VARCHAR(2048) NOT NULL DEFAULT ''
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- One registered credential of a user of one auth table on one site (its
-- relying party). credential_hash: SHA-256 (hex) of the raw credential id,
-- the lookup key of a sign-in; credential_id: base64url of the raw id.
-- public_key: base64url of the COSE key, alg its COSE algorithm (-7 ES256,
-- -8 EdDSA, -257 RS256). user_handle: base64url of the random WebAuthn
-- user.id, one per (site, table, user). sign_count: the highest counter
-- seen; a sign-in is accepted only by the one UPDATE that raises it (or
-- keeps it 0 when the authenticator has no counter). backup_eligible: the
-- BE flag at registration (synced passkey: amr "swk", else "hwk").
CREATE TABLE IF NOT EXISTS svc_passkeys (
  id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  site_id          BIGINT          NOT NULL,
  auth_table       VARCHAR(64)     NOT NULL,
  user_id          BIGINT UNSIGNED NOT NULL,
  credential_hash  CHAR(64)        NOT NULL,
  credential_id    VARCHAR(1400)   NOT NULL,
  public_key       TEXT            NOT NULL,
  alg              INT             NOT NULL,
  user_handle      VARCHAR(96)     NOT NULL,
  sign_count       BIGINT          NOT NULL DEFAULT 0,
  backup_eligible  TINYINT         NOT NULL DEFAULT 0,
  backed_up        TINYINT         NOT NULL DEFAULT 0,
  aaguid           CHAR(32)        NOT NULL DEFAULT '',
  attestation_fmt  VARCHAR(32)     NOT NULL DEFAULT 'none',
  transports       VARCHAR(255)    NOT NULL DEFAULT '',
  name             VARCHAR(255)    NOT NULL DEFAULT '',
  created_at       BIGINT          NOT NULL,
  last_used_at     BIGINT          NULL,
  UNIQUE KEY ux_svc_passkeys_credential (site_id, credential_hash),
  KEY ix_svc_passkeys_user (site_id, auth_table, user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- An open ceremony: the challenge_token a client gets with the options is
-- random; only its HMAC (hex) is stored. The row holds the challenge
-- (base64url), the site, the kind ('register', 'login', 'mfa'), the user it
-- is bound to (register and mfa always; login when the request named an
-- e-mail: bound = 1, user_id 0 for an unknown address), whether user
-- verification was required, for 'register' the user handle to give the
-- credential, for 'mfa' the hash of the mfa_token. Lives 5 minutes; spent by
-- the one UPDATE that claims it, before anything of the answer is checked.
CREATE TABLE IF NOT EXISTS svc_passkey_challenges (
  token_hash      CHAR(64)        NOT NULL PRIMARY KEY,
  site_id         BIGINT          NOT NULL,
  kind            VARCHAR(16)     NOT NULL,
  challenge       VARCHAR(64)     NOT NULL,
  auth_table      VARCHAR(64)     NOT NULL DEFAULT '',
  user_id         BIGINT UNSIGNED NOT NULL DEFAULT 0,
  bound           TINYINT         NOT NULL DEFAULT 0,
  uv_required     TINYINT         NOT NULL DEFAULT 1,
  user_handle     VARCHAR(96)     NOT NULL DEFAULT '',
  mfa_token_hash  CHAR(64)        NOT NULL DEFAULT '',
  expires_at      BIGINT          NOT NULL,
  spent           TINYINT         NOT NULL DEFAULT 0,
  KEY ix_svc_passkey_challenges_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

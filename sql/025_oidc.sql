-- OpenID Connect provider (issue 39, docs/oidc.md, docs/decisions.md
-- "Issue 39"). Times are unix seconds. Secrets, codes and cookies are kept
-- only as SHA-256 hex of the value (secret_hash: of the client secret).

-- RS256 keys (ID tokens) join the key set: their DER halves are longer than
-- an ES256 or Ed25519 key. Extending a VARCHAR that already needs two length
-- bytes changes no row: in place, no lock.
ALTER TABLE svc_signing_keys
  MODIFY public_key VARCHAR(1024) NOT NULL,
  MODIFY private_key_sealed VARCHAR(3072) NOT NULL,
  ALGORITHM=INPLACE, LOCK=NONE;

-- Relying parties (svc-admin oauth-client). client_id: 22 base64url
-- characters; secret_hash '' for a public client (PKCE, no secret).
-- redirect_uris / post_logout_uris: one URI a line, matched exactly.
CREATE TABLE IF NOT EXISTS svc_oauth_clients (
  client_id         VARCHAR(64)   NOT NULL PRIMARY KEY,
  site_id           BIGINT        NOT NULL,
  name              VARCHAR(190)  NOT NULL,
  secret_hash       CHAR(64)      NOT NULL DEFAULT '',
  redirect_uris     TEXT          NOT NULL,
  post_logout_uris  TEXT          NOT NULL,
  is_public         TINYINT       NOT NULL DEFAULT 0,
  first_party       TINYINT       NOT NULL DEFAULT 0,
  created_at        BIGINT        NOT NULL,
  KEY ix_svc_oauth_clients_site (site_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- An authorization request waiting for the user on the hosted sign-in or
-- consent page (its id travels in the page's URL and forms). browser_hash:
-- the browser cookie of the browser that made it; only that browser's forms
-- (their CSRF token is derived from the cookie) may complete it. Spent
-- (done_at) when its code is issued or its error sent.
CREATE TABLE IF NOT EXISTS svc_oauth_requests (
  id              VARCHAR(64)   NOT NULL PRIMARY KEY,
  site_id         BIGINT        NOT NULL,
  client_id       VARCHAR(64)   NOT NULL,
  redirect_uri    VARCHAR(2048) NOT NULL,
  scope           VARCHAR(512)  NOT NULL,
  state           VARCHAR(1024) NOT NULL DEFAULT '',
  nonce           VARCHAR(512)  NOT NULL DEFAULT '',
  code_challenge  VARCHAR(128)  NOT NULL DEFAULT '',
  prompt          VARCHAR(64)   NOT NULL DEFAULT '',
  max_age         BIGINT        NULL,
  login_hint      VARCHAR(254)  NOT NULL DEFAULT '',
  ui_locales      VARCHAR(64)   NOT NULL DEFAULT '',
  browser_hash    CHAR(64)      NOT NULL,
  created_at      BIGINT        NOT NULL,
  expires_at      BIGINT        NOT NULL,
  done_at         BIGINT        NULL,
  KEY ix_svc_oauth_requests_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Authorization codes: 60 s, single use (used_at set by one conditional
-- UPDATE), bound to client, redirect URI and PKCE challenge. session_id:
-- the svc session the sign-in opened for this client (its tokens' sid),
-- which a replay of the code revokes.
CREATE TABLE IF NOT EXISTS svc_oauth_codes (
  code_hash       CHAR(64)      NOT NULL PRIMARY KEY,
  site_id         BIGINT        NOT NULL,
  client_id       VARCHAR(64)   NOT NULL,
  redirect_uri    VARCHAR(2048) NOT NULL,
  code_challenge  VARCHAR(128)  NOT NULL DEFAULT '',
  scope           VARCHAR(512)  NOT NULL,
  nonce           VARCHAR(512)  NOT NULL DEFAULT '',
  session_id      CHAR(22)      NOT NULL,
  created_at      BIGINT        NOT NULL,
  expires_at      BIGINT        NOT NULL,
  used_at         BIGINT        NULL,
  KEY ix_svc_oauth_codes_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- What a svc session opened by an OpenID Connect sign-in was granted: the
-- client, its scopes, and the single sign-on session it came from (its
-- svc session id), which end-session ends with it.
CREATE TABLE IF NOT EXISTS svc_oauth_grants (
  session_id      CHAR(22)      NOT NULL PRIMARY KEY,
  site_id         BIGINT        NOT NULL,
  client_id       VARCHAR(64)   NOT NULL,
  scope           VARCHAR(512)  NOT NULL,
  sso_session_id  CHAR(22)      NOT NULL DEFAULT '',
  created_at      BIGINT        NOT NULL,
  KEY ix_svc_oauth_grants_sso (sso_session_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The single sign-on cookie: its value's hash names the svc session the
-- hosted sign-in opened (revoked with it: sign-out, password reset, ...).
CREATE TABLE IF NOT EXISTS svc_oauth_sso (
  cookie_hash     CHAR(64)      NOT NULL PRIMARY KEY,
  site_id         BIGINT        NOT NULL,
  session_id      CHAR(22)      NOT NULL,
  created_at      BIGINT        NOT NULL,
  KEY ix_svc_oauth_sso_session (session_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Consent a user gave a client that is not first-party, for these scopes
-- (space-separated, sorted).
CREATE TABLE IF NOT EXISTS svc_oauth_consents (
  auth_table      VARCHAR(64)     NOT NULL,
  user_id         BIGINT UNSIGNED NOT NULL,
  client_id       VARCHAR(64)     NOT NULL,
  scope           VARCHAR(512)    NOT NULL,
  created_at      BIGINT          NOT NULL,
  PRIMARY KEY (auth_table, user_id, client_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

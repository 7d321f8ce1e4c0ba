-- Upstream sign-in ("Sign in with ...", issue 51, design "Upstream sign-in
-- ("Sign in with ...") and hosted registration").
--
-- svc_upstream_providers: a site's upstream identity providers. type is
-- 'oidc' (ID token checked against jwks_url, iss = issuer) or 'github'
-- (OAuth 2; api_url/user and api_url/user/emails). The endpoints are kept
-- as `site provider add` found them (a preset's, or the issuer's discovery
-- document). client_secret is sealed as webhook secrets are ([keys]
-- webhook_key, bound to the site). response_mode 'form_post' for Apple.
CREATE TABLE IF NOT EXISTS svc_upstream_providers (
  id             BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  site_id        BIGINT UNSIGNED NOT NULL,
  name           VARCHAR(32)   NOT NULL,
  type           VARCHAR(8)    NOT NULL,
  issuer         VARCHAR(255)  NOT NULL DEFAULT '',
  authorize_url  VARCHAR(512)  NOT NULL,
  token_url      VARCHAR(512)  NOT NULL,
  jwks_url       VARCHAR(512)  NOT NULL DEFAULT '',
  api_url        VARCHAR(512)  NOT NULL DEFAULT '',
  client_id      VARCHAR(255)  NOT NULL,
  client_secret  TEXT          NOT NULL,
  scopes         VARCHAR(255)  NOT NULL,
  trust_email    TINYINT(1)    NOT NULL DEFAULT 0,
  response_mode  VARCHAR(16)   NOT NULL DEFAULT 'query',
  created_at     BIGINT        NOT NULL,
  UNIQUE KEY ux_svc_upstream_providers_name (site_id, name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- A user's identities at upstream providers, unique per (issuer, subject)
-- in the user pool: the subject is the provider's (the ID token's sub, or
-- GitHub's numeric user id), issuer the provider's issuer (GitHub: its API
-- URL). Two sites of one pool with the same provider share the identity.
CREATE TABLE IF NOT EXISTS svc_user_identities (
  id           BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  pool_id      BIGINT UNSIGNED NOT NULL,
  issuer       VARCHAR(255)  NOT NULL,
  subject      VARCHAR(255)  NOT NULL,
  auth_table   VARCHAR(64)   NOT NULL,
  user_id      BIGINT UNSIGNED NOT NULL,
  provider     VARCHAR(32)   NOT NULL,
  email        VARCHAR(254)  NOT NULL DEFAULT '',
  created_at   BIGINT        NOT NULL,
  last_used_at BIGINT        NOT NULL,
  UNIQUE KEY ux_svc_user_identities_subject (pool_id, issuer, subject),
  KEY ix_svc_user_identities_user (auth_table, user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- A sign-in started at an upstream provider, kept server-side until its
-- callback: state (only its hash), nonce, PKCE verifier, the browser it is
-- bound to (hash of the browser cookie), and where it goes on: the hosted
-- page's authorization request, or the JSON API's return_to. link_user_id:
-- the flow links to this signed-in user (the account centre) rather than
-- signing in. Spent once; expires after 10 minutes.
CREATE TABLE IF NOT EXISTS svc_upstream_flows (
  state_hash    CHAR(64)      NOT NULL PRIMARY KEY,
  site_id       BIGINT UNSIGNED NOT NULL,
  provider_id   BIGINT UNSIGNED NOT NULL,
  browser_hash  CHAR(64)      NOT NULL,
  nonce         VARCHAR(64)   NOT NULL,
  verifier      VARCHAR(128)  NOT NULL,
  request_id    VARCHAR(64)   NOT NULL DEFAULT '',
  return_to     VARCHAR(2048) NOT NULL DEFAULT '',
  link_table    VARCHAR(64)   NOT NULL DEFAULT '',
  link_user_id  BIGINT UNSIGNED NOT NULL DEFAULT 0,
  expires_at    BIGINT        NOT NULL,
  spent         TINYINT(1)    NOT NULL DEFAULT 0,
  KEY ix_svc_upstream_flows_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- An upstream identity waiting to be linked once its user signs in with an
-- existing way (the address matched a local user but could not be trusted
-- for both): keyed by the hosted page's authorization request; or, for the
-- JSON API, a one-time code for POST /auth/upstream/exchange (kind 'code').
CREATE TABLE IF NOT EXISTS svc_upstream_pending (
  token_hash   CHAR(64)      NOT NULL PRIMARY KEY,
  kind         VARCHAR(8)    NOT NULL,
  site_id      BIGINT UNSIGNED NOT NULL,
  provider_id  BIGINT UNSIGNED NOT NULL,
  subject      VARCHAR(255)  NOT NULL,
  email        VARCHAR(254)  NOT NULL DEFAULT '',
  auth_table   VARCHAR(64)   NOT NULL DEFAULT '',
  user_id      BIGINT UNSIGNED NOT NULL DEFAULT 0,
  session_id   VARCHAR(64)   NOT NULL DEFAULT '',
  expires_at   BIGINT        NOT NULL,
  KEY ix_svc_upstream_pending_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- site set --signup open|closed: whether a stranger may register on the
-- hosted pages or through an upstream provider (default open).
ALTER TABLE svc_sites ADD COLUMN IF NOT EXISTS signup_open TINYINT(1) NOT NULL DEFAULT 1, ALGORITHM=INSTANT;

-- Sign in with Apple's client secret (issue 51; docs/oidc.md "Sign in with
-- …"): a provider added with --team-id and --key-id keeps the .p8 key as its
-- sealed client_secret, and svc mints the ES256 client secret JWT (iss = the
-- team id, kid = the key id) at each token request. Empty for every other
-- provider, whose client_secret is sent as it is.
ALTER TABLE svc_upstream_providers
  ADD COLUMN IF NOT EXISTS team_id VARCHAR(32) NOT NULL DEFAULT '',
  ADD COLUMN IF NOT EXISTS key_id  VARCHAR(32) NOT NULL DEFAULT '',
  ALGORITHM=INSTANT;

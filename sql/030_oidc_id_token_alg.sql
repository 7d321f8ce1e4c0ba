-- The algorithm of a client's ID tokens (issue 39, docs/oidc.md,
-- docs/decisions.md "Issue 39: ID token algorithm per client"):
-- svc-admin oauth-client create --id-token-alg RS256|ES256|EdDSA. RS256, the
-- default, is what every relying party accepts (OpenID Connect Core 15.1);
-- ES256 and EdDSA tokens are signed with the key set's newest active key of
-- that algorithm, the ones access tokens use.
ALTER TABLE svc_oauth_clients
  ADD COLUMN IF NOT EXISTS id_token_alg VARCHAR(8) NOT NULL DEFAULT 'RS256', ALGORITHM=INSTANT;

-- OpenID Connect Front-Channel Logout 1.0 (issue 39, docs/oidc.md): the URI
-- a client registered to be loaded in an iframe of the end-session page
-- (`svc-admin oauth-client create --frontchannel-logout-uri`); '' = none.
-- Same origin as one of the client's redirect URIs. A new last column
-- with a default: instant, no table copy, no lock.
ALTER TABLE svc_oauth_clients
  ADD COLUMN IF NOT EXISTS frontchannel_logout_uri VARCHAR(2048) NOT NULL DEFAULT '',
  ALGORITHM=INSTANT;

-- Access tokens signed asymmetrically (issue 23, docs/decisions.md "Access
-- tokens any backend can verify"): the signing keys every app host of a
-- cluster shares. The private half is sealed with [keys] signing_kek
-- (XChaCha20-Poly1305, the kid as associated data); only the public half is
-- ever published (GET /.well-known/jwks.json). Times are unix seconds:
-- the newest key with activate_at <= now signs; every key whose retire_at
-- is NULL or in the future is published. The keys are the service's own,
-- not a site's: no site column.

CREATE TABLE IF NOT EXISTS svc_signing_keys (
  id                  BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  kid                 VARCHAR(64)   NOT NULL,
  alg                 VARCHAR(16)   NOT NULL,
  public_key          VARCHAR(128)  NOT NULL,
  private_key_sealed  VARCHAR(255)  NOT NULL,
  created_at          BIGINT        NOT NULL,
  activate_at         BIGINT        NOT NULL,
  retire_at           BIGINT        NULL,
  UNIQUE KEY uq_svc_signing_keys_kid (kid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The `aud` of a site's access tokens (svc-admin site set --audience);
-- '' = https://<domain>.
ALTER TABLE svc_sites ADD COLUMN IF NOT EXISTS audience VARCHAR(255) NOT NULL DEFAULT '', ALGORITHM=INSTANT;

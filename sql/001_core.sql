-- Sites (applications), users and the security tables of the auth endpoints.
-- Admin-only columns of svc_sites are never written through the API.

CREATE TABLE IF NOT EXISTS svc_sites (
  id                     BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name                   VARCHAR(190)  NOT NULL,
  domain                 VARCHAR(255)  NOT NULL DEFAULT '',
  reset_url              VARCHAR(2048) NOT NULL DEFAULT '',
  allowed_redirect_hosts TEXT          NULL,
  disable_email          TINYINT(1)    NOT NULL DEFAULT 0,
  email_from             VARCHAR(320)  NOT NULL DEFAULT '',
  email_cc               BIGINT UNSIGNED NULL,
  email_bcc              BIGINT UNSIGNED NULL,
  vapid_public_key       VARCHAR(128)  NULL,
  vapid_private_key      VARCHAR(128)  NULL,
  vapid_subject          VARCHAR(320)  NULL,
  api_key_hash           VARCHAR(128)  NULL,
  allow_sql_merge        TINYINT(1)    NOT NULL DEFAULT 0,
  active                 TINYINT(1)    NOT NULL DEFAULT 1,
  created_at             TIMESTAMP     NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at             TIMESTAMP     NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS svc_users (
  id             BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  user_email     VARCHAR(254) NOT NULL,
  password       VARCHAR(255) NULL,
  first_name     VARCHAR(50)  NOT NULL DEFAULT '',
  last_name      VARCHAR(50)  NOT NULL DEFAULT '',
  primary_role   VARCHAR(64)  NOT NULL DEFAULT 'user',
  mobile         VARCHAR(32)  NULL,
  active         TINYINT(1)   NOT NULL DEFAULT 1,
  token_version  INT UNSIGNED NOT NULL DEFAULT 0,
  created_at     TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at     TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  UNIQUE KEY uq_svc_users_email (user_email)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS svc_login_throttle (
  auth_table    VARCHAR(64)  NOT NULL,
  email         VARCHAR(254) NOT NULL,
  failures      INT UNSIGNED NOT NULL DEFAULT 0,
  window_start  BIGINT       NOT NULL,
  locked_until  BIGINT       NOT NULL DEFAULT 0,
  PRIMARY KEY (auth_table, email)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS svc_versions (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  table_name  VARCHAR(64)  NOT NULL,
  record_id   BIGINT UNSIGNED NOT NULL,
  action      VARCHAR(16)  NOT NULL,
  snapshot    TEXT         NOT NULL,
  created_at  TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP,
  KEY ix_svc_versions_record (table_name, record_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS svc_audit_log (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  event       VARCHAR(64)  NOT NULL,
  auth_table  VARCHAR(64)  NULL,
  user_id     BIGINT UNSIGNED NULL,
  site_id     BIGINT UNSIGNED NULL,
  ip          VARCHAR(64)  NULL,
  user_agent  VARCHAR(512) NULL,
  request_id  VARCHAR(64)  NULL,
  detail      VARCHAR(255) NULL,
  created_at  TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP,
  KEY ix_svc_audit_user (user_id, created_at),
  KEY ix_svc_audit_event (event, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS svc_sms_codes (
  user_id     BIGINT UNSIGNED NOT NULL,
  auth_table  VARCHAR(64)  NOT NULL DEFAULT 'svc_users',
  code_hash   VARBINARY(64) NOT NULL,
  expires_at  BIGINT       NOT NULL,
  attempts    INT UNSIGNED NOT NULL DEFAULT 0,
  spent       TINYINT(1)   NOT NULL DEFAULT 0,
  created_at  BIGINT       NOT NULL,
  PRIMARY KEY (user_id, auth_table)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

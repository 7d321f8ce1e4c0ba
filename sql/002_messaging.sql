-- Templates, the notification outbox, record links, folders, customers and
-- the admin-defined merge queries.

CREATE TABLE IF NOT EXISTS svc_notifications (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  site_id     BIGINT UNSIGNED NOT NULL,
  event       VARCHAR(190) NOT NULL,
  enabled     TINYINT(1)   NOT NULL DEFAULT 1,
  subject     VARCHAR(998) NOT NULL,
  content     MEDIUMTEXT   NOT NULL,
  `from`      VARCHAR(320) NULL,
  bcc         VARCHAR(2048) NULL,
  created_at  TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at  TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  UNIQUE KEY uq_svc_notifications_event (site_id, event)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS svc_notification_log (
  id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  site_id          BIGINT UNSIGNED NOT NULL,
  notification_id  BIGINT UNSIGNED NULL,
  event            VARCHAR(190)  NOT NULL,
  recipient        VARCHAR(2048) NOT NULL DEFAULT '',
  `from`           VARCHAR(320)  NOT NULL DEFAULT '',
  cc               VARCHAR(2048) NOT NULL DEFAULT '',
  bcc              VARCHAR(4096) NOT NULL DEFAULT '',
  subject          VARCHAR(998)  NOT NULL DEFAULT '',
  body             MEDIUMTEXT    NOT NULL,
  status           ENUM('Pending','Sent','Failed') NOT NULL DEFAULT 'Pending',
  attempts         INT UNSIGNED  NOT NULL DEFAULT 0,
  next_attempt_at  DATETIME      NOT NULL DEFAULT CURRENT_TIMESTAMP,
  claimed_until    DATETIME      NULL,
  last_error       VARCHAR(1024) NULL,
  table_name       VARCHAR(64)   NULL,
  record_id        BIGINT UNSIGNED NULL,
  request_id       VARCHAR(64)   NULL,
  created_at       DATETIME      NOT NULL DEFAULT CURRENT_TIMESTAMP,
  sent_at          DATETIME      NULL,
  KEY ix_svc_log_due (status, next_attempt_at),
  KEY ix_svc_log_site (site_id, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS svc_related (
  id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  master_table  VARCHAR(64) NOT NULL,
  master_id     BIGINT UNSIGNED NOT NULL,
  linked_table  VARCHAR(64) NOT NULL,
  linked        BIGINT UNSIGNED NOT NULL,
  created_at    TIMESTAMP   NOT NULL DEFAULT CURRENT_TIMESTAMP,
  KEY ix_svc_related_master (master_table, master_id, linked_table),
  KEY ix_svc_related_linked (linked_table, linked)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS svc_folders (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  site_id     BIGINT UNSIGNED NOT NULL,
  name        VARCHAR(190) NOT NULL,
  created_at  TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP,
  KEY ix_svc_folders_site (site_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS svc_customers (
  id                BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  site_id           BIGINT UNSIGNED NOT NULL,
  name              VARCHAR(190)  NOT NULL DEFAULT '',
  pushsubscription  VARCHAR(2048) NULL,
  p256dh            VARCHAR(128)  NULL,
  auth              VARCHAR(64)   NULL,
  created_at        TIMESTAMP     NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at        TIMESTAMP     NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  KEY ix_svc_customers_site (site_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS svc_merge_queries (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  site_id     BIGINT UNSIGNED NOT NULL,
  name        VARCHAR(190) NOT NULL,
  sql_text    TEXT         NOT NULL,
  created_at  TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at  TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  UNIQUE KEY uq_svc_merge_queries_name (site_id, name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

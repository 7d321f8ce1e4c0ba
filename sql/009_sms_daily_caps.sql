-- Per-user caps over a rolling 24 h on SMS codes sent and on wrong guesses
-- across codes (issue 22, [auth] sms_max_sent_daily / sms_max_wrong_daily):
-- one row per code the gateway accepted ('sent') and per wrong guess
-- ('wrong'). In the database, so every worker and every app host counts the
-- same events. A user's rows older than 24 h are deleted when a code is sent
-- to that user; `svc-admin` never needs to purge them.

CREATE TABLE IF NOT EXISTS svc_sms_events (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  user_id     BIGINT UNSIGNED NOT NULL,
  auth_table  VARCHAR(64)  NOT NULL,
  kind        VARCHAR(8)   NOT NULL,
  happened_at BIGINT       NOT NULL,
  KEY ix_svc_sms_events_user (user_id, auth_table, kind, happened_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

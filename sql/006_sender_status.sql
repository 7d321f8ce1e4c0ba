-- What svc-sender's runs did, for GET /metrics (svc_sender_* metrics). The
-- sender is a one-shot timer job, so its figures must outlive its process:
-- each run ends by updating the single row (id = 1) here, from every host
-- that runs a sender. last_* describe the last run; *_total add up all runs
-- since this table was created.

CREATE TABLE IF NOT EXISTS svc_sender_status (
  id                TINYINT UNSIGNED NOT NULL PRIMARY KEY,
  last_run_at       DATETIME NULL,
  last_success_at   DATETIME NULL,
  last_sent         INT UNSIGNED NOT NULL DEFAULT 0,
  last_deferred     INT UNSIGNED NOT NULL DEFAULT 0,
  last_failed       INT UNSIGNED NOT NULL DEFAULT 0,
  last_duration_ms  BIGINT UNSIGNED NOT NULL DEFAULT 0,
  runs              BIGINT UNSIGNED NOT NULL DEFAULT 0,
  sent_total        BIGINT UNSIGNED NOT NULL DEFAULT 0,
  deferred_total    BIGINT UNSIGNED NOT NULL DEFAULT 0,
  failed_total      BIGINT UNSIGNED NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Wrong answers to a user's second factor (issue 36, [auth] mfa_lock_after,
-- mfa_lock_seconds, mfa_max_wrong_daily): one row per answer, written before
-- the answer is checked and deleted when it proves right, so parallel
-- answers each see the ones before them. In the database, so every worker
-- and every app host counts the same answers. A user's rows older than 24 h
-- are deleted when a new one is written.

CREATE TABLE IF NOT EXISTS svc_mfa_wrong_answers (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  auth_table  VARCHAR(64)     NOT NULL,
  user_id     BIGINT UNSIGNED NOT NULL,
  happened_at BIGINT          NOT NULL,
  KEY ix_svc_mfa_wrong_answers_user (auth_table, user_id, happened_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

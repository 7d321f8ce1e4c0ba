-- E-mail changes (issue 38, docs/decisions.md "Account self-service"): one
-- row per POST /auth/email/change. The confirmation link mailed to the new
-- address and the undo link mailed to the old one name the row (their JWT's
-- jti); the row says whether each was used, so either link works once.
-- session_id: the session that asked, which the confirmation keeps while it
-- ends the user's other sessions. expires_at: when the undo link dies (7
-- days). Deleted with the user (account deletion).

CREATE TABLE IF NOT EXISTS svc_email_changes (
  id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  auth_table    VARCHAR(64)     NOT NULL,
  user_id       BIGINT UNSIGNED NOT NULL,
  site_id       BIGINT          NOT NULL DEFAULT 0,
  session_id    VARCHAR(22)     NOT NULL DEFAULT '',
  old_email     VARCHAR(254)    NOT NULL,
  new_email     VARCHAR(254)    NOT NULL,
  created_at    BIGINT          NOT NULL,
  expires_at    BIGINT          NOT NULL,
  confirmed_at  BIGINT          NULL,
  undone_at     BIGINT          NULL,
  KEY ix_svc_email_changes_user (auth_table, user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Mail delivery (issue 12): urgent mail first, fair sharing between sites,
-- per-site hourly quotas and DKIM keys.
--
-- priority: 0 = high (account mail: password reset, password changed),
-- 1 = normal (template notifications), 2 = bulk (a template marked bulk).
-- The claim reads ix_svc_log_claim: Pending rows of one priority, grouped by
-- site, in due order, so Sent and Failed rows are never read however many
-- there are.

ALTER TABLE svc_notification_log
  ADD COLUMN priority TINYINT UNSIGNED NOT NULL DEFAULT 1 AFTER status,
  ADD KEY ix_svc_log_claim (status, priority, site_id, next_attempt_at), ALGORITHM=INPLACE, LOCK=NONE;

ALTER TABLE svc_notifications
  ADD COLUMN priority TINYINT UNSIGNED NOT NULL DEFAULT 1, ALGORITHM=INSTANT;

-- mail_per_hour: NULL = unlimited. dkim_*: NULL = the site's mail is not
-- signed. dkim_private_key is PEM (PKCS#8), stored like the VAPID keys.
ALTER TABLE svc_sites
  ADD COLUMN mail_per_hour INT UNSIGNED NULL,
  ADD COLUMN dkim_selector VARCHAR(63) NULL,
  ADD COLUMN dkim_algorithm VARCHAR(16) NULL,
  ADD COLUMN dkim_private_key TEXT NULL, ALGORITHM=INSTANT;

-- Per site and UTC hour: rows claimed (counted against mail_per_hour) and
-- rows deferred to the next hour because the quota was used up.
CREATE TABLE IF NOT EXISTS svc_mail_quota (
  site_id     BIGINT UNSIGNED NOT NULL,
  hour_start  DATETIME        NOT NULL,
  claimed     INT UNSIGNED    NOT NULL DEFAULT 0,
  deferred    INT UNSIGNED    NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, hour_start)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

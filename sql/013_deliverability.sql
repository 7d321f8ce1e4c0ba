-- Deliverability: bounces and complaints become a suppression list, one-click
-- unsubscribe, templates and account mail in the reader's language
-- (docs/decisions.md "Deliverability").

-- One row per site, address and reason. reason: bounce (a hard 5.x.x DSN:
-- every mail stops), complaint (an ARF report: all but account mail stops),
-- unsubscribe (RFC 8058 one-click: bulk mail stops), manual (svc-admin
-- suppression add: every mail stops). address is stored lower-cased.
-- log_id: the outbox row whose bounce or complaint it came from (NULL when
-- added by hand or by an unsubscribe).
CREATE TABLE IF NOT EXISTS svc_mail_suppressions (
  site_id     BIGINT UNSIGNED NOT NULL,
  address     VARCHAR(254)    NOT NULL,
  reason      VARCHAR(16)     NOT NULL,
  detail      VARCHAR(255)    NOT NULL DEFAULT '',
  log_id      BIGINT UNSIGNED NULL,
  created_at  DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (site_id, address, reason),
  KEY ix_svc_mail_suppressions_reason (reason)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Every bounce and complaint `svc-admin mail ingest` accepted (kind: hard,
-- soft, complaint), soft ones only noted here. The bounce-rate guard counts
-- a site's hard bounces of the last hour through ix_svc_mail_bounces_site.
CREATE TABLE IF NOT EXISTS svc_mail_bounces (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  site_id     BIGINT UNSIGNED NOT NULL,
  log_id      BIGINT UNSIGNED NULL,
  address     VARCHAR(254)    NOT NULL,
  kind        VARCHAR(16)     NOT NULL,
  status      VARCHAR(32)     NOT NULL DEFAULT '',
  created_at  DATETIME        NOT NULL DEFAULT CURRENT_TIMESTAMP,
  KEY ix_svc_mail_bounces_site (site_id, kind, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- A template may exist once per locale (BCP 47, "" = the template's
-- default). Online: the new unique key is built while writes go on.
ALTER TABLE svc_notifications
  ADD COLUMN locale VARCHAR(35) NOT NULL DEFAULT '' AFTER event,
  DROP INDEX uq_svc_notifications_event,
  ADD UNIQUE KEY uq_svc_notifications_event_locale (site_id, event, locale),
  ALGORITHM=INPLACE, LOCK=NONE;

-- The user's language for account mail (BCP 47), from sign-up's optional
-- `locale`. NULL = none given. Further auth tables may add the same column;
-- without it their users get the default language.
ALTER TABLE svc_users
  ADD COLUMN locale VARCHAR(35) NULL,
  ALGORITHM=INSTANT;

-- Webhooks (docs/webhooks.md, docs/decisions.md "Webhooks"). Times are unix
-- seconds. New tables only: no ALTER of an existing one.
--
-- One row per endpoint a site subscribed (svc-admin webhook add). events:
-- the subscribed event types, comma-separated (FIND_IN_SET). secret: the
-- signing key (the bytes after whsec_) sealed with [keys] webhook_key
-- (XChaCha20-Poly1305, "webhook:<site id>" as associated data), base64url;
-- previous_secret / previous_until: the key before the last rotate-secret,
-- still signing beside the new one until previous_until. enabled = 0 after
-- `webhook disable` or a 410 (disabled_reason says which). failures: failed
-- attempts since the last success (doctor reports endpoints that keep
-- failing).
CREATE TABLE IF NOT EXISTS svc_webhook_endpoints (
  id               BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
  site_id          BIGINT        NOT NULL,
  url              VARCHAR(2048) NOT NULL,
  events           VARCHAR(1024) NOT NULL,
  secret           VARCHAR(255)  NOT NULL,
  previous_secret  VARCHAR(255)  NULL,
  previous_until   BIGINT        NULL,
  enabled          TINYINT       NOT NULL DEFAULT 1,
  disabled_reason  VARCHAR(64)   NOT NULL DEFAULT '',
  failures         INT           NOT NULL DEFAULT 0,
  last_success_at  BIGINT        NULL,
  last_failure_at  BIGINT        NULL,
  created_at       BIGINT        NOT NULL,
  KEY ix_svc_webhook_endpoints_site (site_id, enabled)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The durable queue: one row per event and subscribed endpoint, written in
-- the transaction of the change the event reports. msg_id: the webhook-id
-- header, the same on every attempt. data: the event's `data` object (JSON);
-- the body {"type","timestamp","data"} is made from event_type, created_at
-- and data on each attempt, byte for byte the same. status: pending |
-- delivered | failed (the schedule ran out) | dropped (the endpoint was
-- disabled or deleted). claimed_by / claimed_until: the sender run holding
-- it (a run that dies leaves it to the next one once the lease ends).
CREATE TABLE IF NOT EXISTS svc_webhook_deliveries (
  id               BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
  endpoint_id      BIGINT        NOT NULL,
  site_id          BIGINT        NOT NULL,
  msg_id           VARCHAR(32)   NOT NULL,
  event_type       VARCHAR(40)   NOT NULL,
  data             TEXT          NOT NULL,
  created_at       BIGINT        NOT NULL,
  status           VARCHAR(12)   NOT NULL DEFAULT 'pending',
  attempts         INT           NOT NULL DEFAULT 0,
  next_attempt_at  BIGINT        NOT NULL,
  claimed_until    BIGINT        NULL,
  claimed_by       VARCHAR(96)   NULL,
  last_status      INT           NOT NULL DEFAULT 0,
  last_error       VARCHAR(255)  NOT NULL DEFAULT '',
  finished_at      BIGINT        NULL,
  UNIQUE KEY ux_svc_webhook_deliveries_msg (endpoint_id, msg_id),
  KEY ix_svc_webhook_deliveries_due (status, next_attempt_at),
  KEY ix_svc_webhook_deliveries_site (site_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Two things about svc_notification_log rows.
--
-- dedup_key: SHA-256 of (request id, event, recipient), set by every insert
-- the API makes. A unique key turns an insert that is run again (after a
-- lost connection, when the first one may already have committed) into a
-- no-op, so a retry never queues a second e-mail; two requests have two
-- request ids and still make two rows. Rows queued before this migration
-- keep NULL, which a unique key never compares equal.
ALTER TABLE svc_notification_log
  ADD COLUMN dedup_key BINARY(32) NULL AFTER request_id,
  ADD UNIQUE KEY uq_svc_log_dedup (dedup_key), ALGORITHM=INPLACE, LOCK=NONE;

-- A delivered (or given up) mail keeps no live token: the sender replaces
-- every JWT in the body with [redacted] when it records Sent or Failed
-- (db/outbox_repo.cpp, the same pattern). Rows finished before this
-- migration are redacted here once.
UPDATE svc_notification_log
  SET body = REGEXP_REPLACE(body, 'eyJ[A-Za-z0-9_-]+[.][A-Za-z0-9_-]+[.][A-Za-z0-9_-]+', '[redacted]')
  WHERE status <> 'Pending' AND body LIKE '%eyJ%';

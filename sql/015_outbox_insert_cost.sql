-- Every queued mail is one INSERT into svc_notification_log, and each
-- secondary index is one more B-tree write per INSERT (the outbox is the
-- table the API writes most). ix_svc_log_due (status, next_attempt_at) has
-- had nothing left to do since ix_svc_log_claim (status, priority, site_id,
-- next_attempt_at) and ix_svc_log_status_created (status, created_at) came:
-- the sender's claim reads the claim index, and the figures of /metrics,
-- `svc-admin doctor` and `outbox stats` read Pending (or Failed) rows by the
-- `status` prefix of either, which never touches Sent rows however many
-- there are. Dropping an index is online in InnoDB.

ALTER TABLE svc_notification_log
  DROP KEY ix_svc_log_due, ALGORITHM=INPLACE, LOCK=NONE;

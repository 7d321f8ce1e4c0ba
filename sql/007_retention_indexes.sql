-- Indexes for `svc-admin outbox purge` and `svc-admin audit purge`: each
-- batch deletes the oldest rows of one status (outbox) or of any event
-- (audit) by created_at, an index range scan instead of a table scan.
-- InnoDB builds them online (ALGORITHM=INPLACE, LOCK=NONE): the service keeps
-- reading and writing both tables while this runs.

ALTER TABLE svc_notification_log
  ADD KEY ix_svc_log_status_created (status, created_at), ALGORITHM=INPLACE, LOCK=NONE;

ALTER TABLE svc_audit_log
  ADD KEY ix_svc_audit_created (created_at), ALGORITHM=INPLACE, LOCK=NONE;

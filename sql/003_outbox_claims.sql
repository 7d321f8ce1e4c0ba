-- The sender's claim token: which svc-sender run holds a Pending row until
-- claimed_until. Outcomes are written only by the run that holds the claim,
-- so a run whose lease ran out cannot clear a claim another run has taken.
-- Shown by `svc-admin outbox list` to tell which host is working on a row.

ALTER TABLE svc_notification_log
  ADD COLUMN claimed_by VARCHAR(96) NULL AFTER claimed_until, ALGORITHM=INSTANT;

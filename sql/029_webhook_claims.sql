-- svc-sender reads the deliveries it has just claimed by claimed_by
-- (db/webhook_repo.cpp WebhookRepo::claim); without an index that read
-- walked every pending row, so a backlog of N rows cost N rows per batch
-- (issue 40's bench: 10,000 queued deliveries went out at a fifth of the
-- rate of 2,000). Adding an index is online in InnoDB.

ALTER TABLE svc_webhook_deliveries
  ADD KEY ix_svc_webhook_deliveries_claim (claimed_by, status), ALGORITHM=INPLACE, LOCK=NONE;

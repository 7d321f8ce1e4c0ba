-- svc-sender now claims webhook deliveries by primary key and keeps the
-- rows it claimed in memory (db/webhook_repo.cpp WebhookRepo::claim), so
-- nothing reads svc_webhook_deliveries by claimed_by any more: the index
-- sql/029 added for that read only cost every claim and every outcome an
-- index entry moved (issue 40, delivery speed). Dropping an index is
-- online in InnoDB.

ALTER TABLE svc_webhook_deliveries
  DROP KEY IF EXISTS ix_svc_webhook_deliveries_claim, ALGORITHM=NOCOPY, LOCK=NONE;

-- The site management API's mail log (issue 49, docs/api.md "Mail"): a
-- site's notification log, newest first, filtered by status, event or
-- recipient and a date range, in keyset pages. Each filter is the prefix of
-- an index whose next part is created_at (InnoDB appends the id), so every
-- page is one range read of one index, however large the log:
--   no filter, dates only  ix_svc_log_site (site_id, created_at), sql/002
--   status                 ix_svc_log_site_status (site_id, status, created_at)
--   event                  ix_svc_log_site_event (site_id, event, created_at)
--   recipient              ix_svc_log_site_recipient (site_id, recipient(64), created_at)
-- With several filters the most selective one given (recipient, then
-- event, then status) picks the index; the rest are checked on the rows of
-- that range. recipient is up to 2048 characters, so its key part is a
-- prefix: the full value is compared on the row, and the mails to one
-- address are sorted after the read (no scan beyond them).
-- Each index is one more B-tree write per queued mail (sql/015): three
-- here, the price of a log an administrator can search without a scan.
ALTER TABLE svc_notification_log
  ADD KEY ix_svc_log_site_status (site_id, status, created_at),
  ADD KEY ix_svc_log_site_event (site_id, event, created_at),
  ADD KEY ix_svc_log_site_recipient (site_id, recipient(64), created_at),
  ALGORITHM=INPLACE, LOCK=NONE;

-- A site's suppression list, newest first in keyset pages: (site_id,
-- created_at) and the primary key's (address, reason) after it.
ALTER TABLE svc_mail_suppressions
  ADD KEY ix_svc_mail_suppressions_site_created (site_id, created_at), ALGORITHM=INPLACE, LOCK=NONE;

-- The bounce and complaint notes of one mail (its entry in the mail log).
ALTER TABLE svc_mail_bounces
  ADD KEY ix_svc_mail_bounces_log (log_id), ALGORITHM=INPLACE, LOCK=NONE;

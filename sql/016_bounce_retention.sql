-- `svc-admin mail purge-bounces --older-than AGE` deletes bounce and
-- complaint notes by age alone; ix_svc_mail_bounces_site (site_id, kind,
-- created_at) cannot serve a range on created_at over every site, so each
-- batch would scan the table. Adding an index is online in InnoDB.

ALTER TABLE svc_mail_bounces
  ADD KEY ix_svc_mail_bounces_created (created_at), ALGORITHM=INPLACE, LOCK=NONE;

-- getFolderLimits reads one user's links in link order:
--   SELECT r.linked FROM svc_related r JOIN <folders> f ON f.id = r.linked
--   WHERE r.master_table = ? AND r.master_id = ? AND r.linked_table = ?
--     AND f.site_id = ? ORDER BY r.id
-- ix_svc_related_master (master_table, master_id, linked_table) found the
-- rows, but every `linked` came from a lookup of the clustered row. This
-- index names `id` before `linked`, so the rows come out in id order (no
-- filesort, which an index ending in `linked` needed) and the index alone
-- answers ("Using index"). It replaces the old one, whose columns are its
-- prefix. InnoDB builds it online: the service keeps reading and writing.

ALTER TABLE svc_related
  ADD KEY ix_svc_related_master_links (master_table, master_id, linked_table, id, linked),
  DROP KEY ix_svc_related_master,
  ALGORITHM=INPLACE, LOCK=NONE;

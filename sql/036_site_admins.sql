-- Site administrators and their audit (issue 49, design "Site
-- administrators and the site management API").
--
-- svc_site_admins: who may run a site through the management API
-- (/admin/sites/{site}/...). An admin is a user of the site's own pool,
-- named by auth table and user id as every user-keyed row is. Granted by the
-- operator (svc-admin site admin add) or by the site's owner.
CREATE TABLE IF NOT EXISTS svc_site_admins (
  site_id     BIGINT UNSIGNED NOT NULL,
  auth_table  VARCHAR(64)  NOT NULL,
  user_id     BIGINT UNSIGNED NOT NULL,
  role        VARCHAR(16)  NOT NULL,
  granted_at  BIGINT       NOT NULL,
  PRIMARY KEY (site_id, auth_table, user_id),
  KEY ix_svc_site_admins_user (auth_table, user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- One row per change a site's administrators or the operator made, without
-- secrets: actor is the admin's user id, or 'operator' for svc-admin.
-- Listed newest first by (site_id, id); kept by the retention timer
-- ([retention] admin_audit_days, by created_at).
CREATE TABLE IF NOT EXISTS svc_admin_audit (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  site_id     BIGINT UNSIGNED NOT NULL,
  actor       VARCHAR(32)  NOT NULL,
  action      VARCHAR(64)  NOT NULL,
  target      VARCHAR(255) NOT NULL DEFAULT '',
  detail      VARCHAR(1024) NOT NULL DEFAULT '',
  ip          VARCHAR(64)  NOT NULL DEFAULT '',
  request_id  VARCHAR(64)  NOT NULL DEFAULT '',
  created_at  BIGINT       NOT NULL,
  KEY ix_svc_admin_audit_site (site_id, id),
  KEY ix_svc_admin_audit_created (created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

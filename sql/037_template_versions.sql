-- The versions of a site's e-mail templates (issue 49, design "Site
-- administrators and the site management API", Templates): every save of a
-- template (svc-admin template ..., /admin/sites/{site}/templates/...) adds
-- one row holding the whole template as saved, numbered 1, 2, ... per
-- template. An edit names the version it was based on and is refused when a
-- newer one exists; a rollback adds a new version equal to an old one.
-- A template saved before this table existed gets its version 1 (action
-- 'import') at its first save through the service. Deleting a template
-- deletes its versions. Its own table rather than svc_versions: content is
-- MEDIUMTEXT (svc_versions.snapshot is TEXT), and the list pages by
-- (template_id, version) within one site.
CREATE TABLE IF NOT EXISTS svc_template_versions (
  id           BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  site_id      BIGINT UNSIGNED NOT NULL,
  template_id  BIGINT UNSIGNED NOT NULL,
  version      INT UNSIGNED  NOT NULL,
  event        VARCHAR(190)  NOT NULL,
  locale       VARCHAR(35)   NOT NULL DEFAULT '',
  enabled      TINYINT(1)    NOT NULL,
  subject      VARCHAR(998)  NOT NULL,
  content      MEDIUMTEXT    NOT NULL,
  `from`       VARCHAR(320)  NULL,
  bcc          VARCHAR(2048) NULL,
  priority     TINYINT UNSIGNED NOT NULL,
  actor        VARCHAR(32)   NOT NULL,
  action       VARCHAR(16)   NOT NULL,
  created_at   BIGINT        NOT NULL,
  UNIQUE KEY uq_svc_template_versions (template_id, version)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- User pools (issue 47, design "User pools: a site's users are its own"):
-- the namespace an address is unique in. Pool 1 is the default pool: the
-- spec's one namespace, used by requests without appID and by every site
-- that exists before this migration, so an upgrade changes nothing for
-- anyone. `svc-admin site create` gives a new site a pool of its own.
--
-- Every ALTER states its algorithm and lock: none may block a live table.
-- svc-admin migrate applies the svc_users part to the other tables of
-- [auth] tables as well (db/user_pool_ddl.cpp): a migration file
-- cannot know them.

CREATE TABLE IF NOT EXISTS svc_user_pools (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  created_at  TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

INSERT IGNORE INTO svc_user_pools (id) VALUES (1);

ALTER TABLE svc_sites
  ADD COLUMN IF NOT EXISTS user_pool BIGINT UNSIGNED NOT NULL DEFAULT 1,
  ALGORITHM=INSTANT;

ALTER TABLE svc_users
  ADD COLUMN IF NOT EXISTS pool_id BIGINT UNSIGNED NOT NULL DEFAULT 1,
  ALGORITHM=INSTANT;

-- One statement, so no moment has both keys or neither: the address is
-- unique within its pool from here on.
ALTER TABLE svc_users
  ADD UNIQUE KEY IF NOT EXISTS uq_svc_users_pool_email (pool_id, user_email),
  DROP KEY IF EXISTS uq_svc_users_email,
  ALGORITHM=INPLACE, LOCK=NONE;

-- An audit row that names a user names the user's pool.
ALTER TABLE svc_audit_log
  ADD COLUMN IF NOT EXISTS pool_id BIGINT UNSIGNED NULL DEFAULT NULL,
  ALGORITHM=INSTANT;

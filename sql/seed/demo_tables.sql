-- Development/test only: tables a real installation has for itself.
-- svc_staff: a second auth table (same columns as svc_users) for authTable.
-- demo_orders: an application table that merge queries may read.
CREATE TABLE IF NOT EXISTS svc_staff LIKE svc_users;

CREATE TABLE IF NOT EXISTS demo_orders (
  id        BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  site_id   BIGINT UNSIGNED NOT NULL,
  customer  VARCHAR(190) NOT NULL,
  email     VARCHAR(254) NOT NULL,
  total     DECIMAL(10,2) NOT NULL,
  KEY ix_demo_orders_site (site_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

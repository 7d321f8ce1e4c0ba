-- Development/test only: demo templates, folders, a customer and an order for
-- site 1. scripts/stack.sh runs it once, after creating site 1 and the demo user.
INSERT IGNORE INTO svc_notifications (site_id, event, enabled, subject, content, `from`, bcc) VALUES
 (1, 'welcome-email', 1, 'Welcome, [name]!',
  '<p>Hello [name],</p><p>welcome to the demo site.</p>', NULL, NULL),
 (1, 'order-confirmation', 1, 'Order [order_id] confirmed',
  '<p>Thank you [customer]. Your order [order_id] over [total] is confirmed.</p>', 'Orders <orders@demo.example>', 'archive@demo.example'),
 (1, 'password-reset', 1, 'Reset your password',
  '<p>Someone asked to reset the password of [email].</p><p><a href="[link]">Choose a new password</a> (valid for [minutes] minutes).</p><p>If it was not you, ignore this e-mail.</p>', NULL, NULL);

INSERT IGNORE INTO svc_folders (id, site_id, name) VALUES (1, 1, 'Inbox'), (2, 1, 'Projects'), (3, 1, 'Archive');
INSERT IGNORE INTO svc_related (master_table, master_id, linked_table, linked)
  SELECT 'svc_users', u.id, 'svc_folders', f.id FROM svc_users u JOIN svc_folders f ON f.id IN (1, 2)
  WHERE u.user_email = 'demo@example.com';
INSERT IGNORE INTO svc_customers (id, site_id, name) VALUES (1, 1, 'Demo customer');
INSERT IGNORE INTO demo_orders (id, site_id, customer, email, total) VALUES (1, 1, 'Ada Lovelace', 'ada@example.com', 42.50);

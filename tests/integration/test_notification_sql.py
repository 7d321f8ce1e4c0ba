"""The SQL merge field of POST /message/notification, as transcripts:
request -> exact reply -> rows, and the tables the query could have touched.

Covers: a named merge query of the site filling the placeholders (and the
recipient through setEmailField); a name of another site not found; raw SQL
refused without allow_sql_merge; with it, a plain SELECT (first row only);
writes, stacked statements, tables the read-only account may not read,
INTO OUTFILE and a query over the 2 s statement limit all refused with a 400
on SQL that never carries the database's error text, while demo_orders and
svc_users stay byte-for-byte the same; request values bound as parameters,
never spliced into the SQL; the merge connection still works after a query
was cut off by the time limit.

Uses the fixtures of test_notification.py (its own sites, templates and
merge queries; rows found by X-Request-Id).
"""

import os
import time
import uuid

from svc_stack import sql
from test_notification import (TAG, NotificationTest, counts, create_site, define_merge_query, define_template,
                               marker, notify, q)

ORDER_QUERY = "SELECT customer, id AS order_id, total, email FROM demo_orders WHERE id = :master_id"
BY_NAME_QUERY = "SELECT customer, id AS order_id, total FROM demo_orders WHERE customer = :name"
SUBJECT = "Order [order_id] for [customer]"
CONTENT = "<p>[customer] [order_id] [total] [extra]</p>"
# Words of MariaDB/Connector error messages that must never reach a client.
LEAKS = ("denied", "syntax", "read only", "max_statement_time", "interrupted", "doesn't exist", "command",
         "demo_orders", "svc_users", "svc_merge", "outfile", "mariadb", "mysql", "sqlstate", "1064", "1142",
         "1792", "1969", "exception")


class S:
    """Ids filled by setUpModule."""


def setUpModule():
    S.named = create_site("notif-sql-named-" + TAG, "--email-from", "N <n@site-n.example>")
    S.other = create_site("notif-sql-other-" + TAG, "--email-from", "O <o@site-o.example>")
    S.raw = create_site("notif-sql-raw-" + TAG, "--email-from", "R <r@site-r.example>", "--allow-sql-merge", "true")
    S.raw2 = create_site("notif-sql-raw2-" + TAG, "--email-from", "R2 <r2@site-r2.example>",
                         "--allow-sql-merge", "true")
    for site in (S.named, S.other, S.raw, S.raw2):
        define_template(site, "order", SUBJECT, CONTENT)
    define_merge_query(S.named, "order", ORDER_QUERY)
    define_merge_query(S.named, "by-name", BY_NAME_QUERY)
    define_merge_query(S.other, "other-only", ORDER_QUERY)
    define_merge_query(S.other, "everything", "SELECT customer, id AS order_id, total FROM demo_orders ORDER BY id")


def fingerprint():
    """Every column of every row of the tables the SQL field must not change."""
    checksums = sql("CHECKSUM TABLE demo_orders, svc_users EXTENDED")
    orders = sql("SELECT id, site_id, customer, email, total FROM demo_orders ORDER BY id")
    users = sql("SELECT id, user_email, password, first_name, last_name, primary_role, mobile, active,"
                " token_version, updated_at FROM svc_users ORDER BY id")
    return checksums, orders, users


class SqlFieldTest(NotificationTest):

    @classmethod
    def setUpClass(cls):
        cls.ada = sql("SELECT customer, id, total, email FROM demo_orders WHERE id = 1")[0]

    def assertSqlRefused(self, reply, before):
        self.assertValidation(reply, "SQL")
        self.assertEqual([e["field"] for e in reply.json["errors"]], ["SQL"], reply)
        text = reply.raw.decode("utf-8", "replace").lower()
        for word in LEAKS:
            self.assertNotIn(word, text, reply)
        self.assertNothingWritten(reply, before)

    # --- named queries ---------------------------------------------------------------

    def test_named_query_fills_the_placeholders(self):
        customer, order_id, total, email = self.ada
        to = marker()
        reply = notify({"event": "order", "email": to, "SQL": "order", "master_id": 1, "table": "demo_orders",
                        "data": {"extra": "<x>"}}, site=S.named)
        row = self.assertOneRow(reply, S.named)
        self.assertEqual(row["recipient"], to)
        self.assertEqual(row["subject"], "Order %s for %s" % (order_id, customer))
        self.assertEqual(row["body"], "<p>%s %s %s &lt;x&gt;</p>" % (customer, order_id, total))
        self.assertEqual((customer, total), ("Ada Lovelace", "42.50"))

    def test_named_query_result_can_name_the_recipient(self):
        reply = notify({"event": "order", "setEmailField": "email", "SQL": "order", "master_id": 1}, site=S.named)
        row = self.assertOneRow(reply, S.named)
        self.assertEqual(row["recipient"], self.ada[3])

    def test_named_query_without_a_matching_row_leaves_placeholders(self):
        reply = notify({"event": "order", "email": marker(), "SQL": "order", "master_id": 987654321}, site=S.named)
        row = self.assertOneRow(reply, S.named)
        self.assertEqual(row["subject"], SUBJECT)
        self.assertEqual(row["body"], CONTENT)

    def test_named_query_of_another_site_is_not_found(self):
        for name in ("other-only", "everything"):
            with self.subTest(name=name):
                before = counts()
                reply = notify({"event": "order", "email": marker(), "SQL": name, "master_id": 1}, site=S.named)
                self.assertSqlRefused(reply, before)
        # Site "raw" may run raw SQL, but a foreign name is still not a query of its own.
        before = counts()
        reply = notify({"event": "order", "email": marker(), "SQL": "other-only", "master_id": 1}, site=S.raw)
        self.assertSqlRefused(reply, before)

    def test_raw_sql_without_allow_sql_merge_is_refused(self):
        for text in ("SELECT customer, id AS order_id, total FROM demo_orders WHERE id = 1", "SELECT 1 AS extra"):
            with self.subTest(sql=text):
                before = counts()
                reply = notify({"event": "order", "email": marker(), "SQL": text}, site=S.named)
                self.assertSqlRefused(reply, before)

    def test_request_values_are_bound_not_spliced(self):
        before_tables = fingerprint()
        for value in ("' OR 1=1 --", "x' OR '1'='1", "\\' OR 1=1 #", "'; DELETE FROM demo_orders; --"):
            with self.subTest(value=value):
                # Named query: no customer has that name, so nothing matches.
                reply = notify({"event": "order", "email": marker(), "SQL": "by-name", "data": {"name": value}},
                               site=S.named)
                row = self.assertOneRow(reply, S.named)
                self.assertEqual(row["subject"], SUBJECT)
                # Raw SQL with the same parameter.
                reply = notify({"event": "order", "email": marker(), "SQL": BY_NAME_QUERY,
                                "data": {"name": value}}, site=S.raw)
                row = self.assertOneRow(reply, S.raw)
                self.assertEqual(row["subject"], SUBJECT)
        # The control: the real name matches, so binding does work.
        reply = notify({"event": "order", "email": marker(), "SQL": "by-name", "data": {"name": "Ada Lovelace"}},
                       site=S.named)
        row = self.assertOneRow(reply, S.named)
        self.assertEqual(row["subject"], "Order 1 for Ada Lovelace")
        # master_id is bound too (and validated as a number first).
        reply = notify({"event": "order", "email": marker(), "SQL": "order", "master_id": "1 OR 1=1"}, site=S.named)
        self.assertValidation(reply, "master_id")
        self.assertEqual(fingerprint(), before_tables)

    # --- raw SQL on a site with allow_sql_merge ------------------------------------------

    def test_raw_select_uses_the_first_row_only(self):
        text = ("SELECT * FROM (SELECT 1 AS n, 'first' AS customer, 'F' AS order_id UNION ALL"
                " SELECT 2, 'second', 'S') t ORDER BY n")
        reply = notify({"event": "order", "email": marker(), "SQL": text}, site=S.raw)
        row = self.assertOneRow(reply, S.raw)
        self.assertEqual(row["subject"], "Order F for first")
        self.assertEqual(row["body"], "<p>first F [total] [extra]</p>")

    def test_raw_select_of_a_granted_table(self):
        reply = notify({"event": "order", "email": marker(), "master_id": 1,
                        "SQL": "  select customer, id AS order_id, total FROM demo_orders WHERE id = :master_id"},
                       site=S.raw)
        row = self.assertOneRow(reply, S.raw)
        self.assertEqual(row["subject"], "Order 1 for Ada Lovelace")
        self.assertEqual(row["body"], "<p>Ada Lovelace 1 42.50 [extra]</p>")

    def test_raw_sql_that_is_not_a_plain_select_is_refused(self):
        outfile = "/tmp/notif-outfile-%s-%s.txt" % (TAG, uuid.uuid4().hex[:6])
        statements = [
            "UPDATE demo_orders SET total = 0",
            "DELETE FROM demo_orders",
            "SELECT 1; DELETE FROM demo_orders",
            "SELECT 1 AS extra; UPDATE demo_orders SET total = 0",
            "SELECT * FROM svc_users",
            "SELECT user_email AS customer, password AS order_id FROM svc_users",
            "SELECT sql_text AS customer FROM svc_merge_queries",
            "SELECT customer FROM demo_orders INTO OUTFILE '%s'" % outfile,
            "SELECT customer INTO OUTFILE '%s' FROM demo_orders" % outfile,
            "INSERT INTO demo_orders (site_id, customer, email, total) VALUES (1, 'x', 'x@example.com', 1)",
            "SELECT customer FROM demo_orders WHERE id = (SELECT COUNT(*) FROM svc_users)",
            "SELECT customer FROM demo_orders WHER id = 1",
            "CALL x()",
            "WITH t AS (SELECT 1) DELETE FROM demo_orders",
        ]
        before_tables = fingerprint()
        for text in statements:
            with self.subTest(sql=text):
                before = counts()
                reply = notify({"event": "order", "email": marker(), "SQL": text, "master_id": 1}, site=S.raw)
                self.assertSqlRefused(reply, before)
        self.assertFalse(os.path.exists(outfile), outfile)
        self.assertEqual(fingerprint(), before_tables)

    def test_query_over_the_time_limit_is_cut_off(self):
        before_tables = fingerprint()
        for text in ("SELECT SLEEP(10)", "SELECT customer, SLEEP(10) AS extra FROM demo_orders WHERE id = 1"):
            with self.subTest(sql=text):
                before = counts()
                started = time.monotonic()
                reply = notify({"event": "order", "email": marker(), "SQL": text}, site=S.raw)
                elapsed = time.monotonic() - started
                self.assertLess(elapsed, 5.0, reply)
                self.assertSqlRefused(reply, before)
        self.assertEqual(fingerprint(), before_tables)
        # Every worker's merge connection still works (the stack runs 2 workers;
        # requests go round the pool).
        for _ in range(6):
            reply = notify({"event": "order", "email": marker(), "master_id": 1,
                            "SQL": "SELECT customer, id AS order_id FROM demo_orders WHERE id = :master_id"},
                           site=S.raw)
            row = self.assertOneRow(reply, S.raw)
            self.assertEqual(row["subject"], "Order 1 for Ada Lovelace")

    def test_files_are_not_readable(self):
        reply = notify({"event": "order", "email": marker(),
                        "SQL": "SELECT LOAD_FILE('/etc/hostname') AS customer, 'L' AS order_id"}, site=S.raw)
        if reply.status == 200:
            row = self.assertOneRow(reply, S.raw)
            self.assertEqual(row["subject"], "Order L for ")  # NULL: the account has no FILE privilege
        else:
            self.assertSqlRefused(reply, counts())

    def test_sql_values_are_escaped_and_stripped_like_data(self):
        reply = notify({"event": "order", "email": marker(),
                        "SQL": "SELECT CONCAT('<b>', CHAR(13), CHAR(10), 'Bcc: e@example.com') AS customer,"
                               " '&' AS order_id"}, site=S.raw)
        row = self.assertOneRow(reply, S.raw)
        self.assertEqual(row["subject"], "Order & for <b>Bcc: e@example.com")
        self.assertEqual(row["body"], "<p>&lt;b&gt;\r\nBcc: e@example.com &amp; [total] [extra]</p>")

    def test_no_user_variable_outlives_the_request(self):
        # The merge connection is reused by the worker for every site. A raw
        # SELECT may not leave anything behind on it: a user variable set by
        # one site must not be readable by the next request (here of another
        # site), and a user-level lock must not stay held after the reply.
        var = "@notif_%s" % TAG
        secret = "secret-" + uuid.uuid4().hex
        reply = notify({"event": "order", "email": marker(), "data": {"s": secret},
                        "SQL": "SELECT %s := :s AS extra, 'set' AS customer" % var}, site=S.raw)
        row = self.assertOneRow(reply, S.raw)
        self.assertEqual(row["subject"], "Order [order_id] for set")
        for _ in range(6):  # two workers: some of these reach the same connection
            reply = notify({"event": "order", "email": marker(), "SQL": "SELECT %s AS customer" % var},
                           site=S.raw2)
            row = self.assertOneRow(reply, S.raw2)
            self.assertNotIn(secret, row["subject"])
            self.assertEqual(row["subject"], "Order [order_id] for ")

    def test_no_user_lock_outlives_the_request(self):
        lock = "notif-lock-%s" % TAG
        self.addCleanup(lambda: [notify({"event": "order", "email": marker(),
                                         "SQL": "SELECT RELEASE_ALL_LOCKS() AS customer"}, site=S.raw)
                                 for _ in range(6)])
        reply = notify({"event": "order", "email": marker(), "SQL": "SELECT GET_LOCK(%s, 0) AS customer" % q(lock)},
                       site=S.raw)
        self.assertEqual(reply.status, 200, reply)
        self.assertIsNone(sql("SELECT IS_USED_LOCK(%s)" % q(lock))[0][0], "lock still held after the reply")

    def test_validation_errors_come_before_the_query(self):
        before = counts()
        reply = notify({"event": "order", "email": marker(), "SQL": "SELECT SLEEP(3)", "master_id": "x"},
                       site=S.raw)
        self.assertValidation(reply, "master_id")
        self.assertNothingWritten(reply, before)


if __name__ == "__main__":
    import svc_stack
    svc_stack.main()

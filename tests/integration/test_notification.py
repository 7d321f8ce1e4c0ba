"""POST /message/notification through nginx + workers + MariaDB, as
transcripts: request -> exact reply -> rows that must (or must not) exist.

Covers: site authentication (site-id / x-site-id, malformed and unknown ids,
inactive sites, x-site-key, a body appID never selecting a site); the
Success shape and the Pending row it writes (event, site, template, sender,
rendered subject/body, created_at); the svc_related link written in the same
transaction; disabled e-mail, unknown/disabled/foreign events; merging
(HTML escaping, CR/LF in the subject, unknown placeholders, single pass,
numbers and booleans); recipients (lists, setEmailField, NONE, site CC/BCC
users, template BCC, invalid addresses); validation field by field, malformed
JSON, oversized and non-UTF-8 bodies; and, when svc-sender runs in the stack,
one message end to end into the SMTP sink.

The module makes its own sites (svc-admin site create) with their own
templates (svc-admin template set, or an INSERT while that command does not
exist yet), so it never depends on the demo data and can run again on the same
stack. Rows are found by the X-Request-Id of the reply (the log keeps it in
request_id), and "nothing was written" is checked both by that id and by the
row counts of svc_notification_log and svc_related before and after.

The merge field SQL is covered by test_notification_sql.py, which reuses the
helpers here.
"""

import json
import os
import tempfile
import time
import uuid

import fcgi_client
import svc_stack
from svc_stack import ApiTest, admin, post, q, sql, sql_value

PATH = "/message/notification"
TAG = "%d%s" % (os.getpid(), uuid.uuid4().hex[:6])
UNAUTHORIZED = {"status": "Error", "message": "Unauthorized"}
SUCCESS = {"status": "Success"}
DISABLED = {"status": "Failed", "message": "Notifications are disabled"}
NOT_FOUND = {"status": "Failed", "message": "Notification event not found or disabled"}
NO_RECIPIENT = {"status": "Failed", "message": "No recipient"}
GENERIC_500 = {"status": "Failed", "message": "An error occurred while processing your request"}
TOO_LARGE = {"status": "Failed", "message": "Request body too large"}

LOG_COLUMNS = ["id", "site_id", "notification_id", "event", "recipient", "from", "cc", "bcc", "subject", "body",
               "status", "table_name", "record_id", "request_id", "age"]


# --- fixtures -----------------------------------------------------------------

def create_site(name, *options):
    """svc-admin site create; returns the new id (the last line it prints).
    Keyless on purpose (--api-key none) unless options name a key, so the
    cases here stay about what they test; keys are test_site_keys' subject."""
    if "--api-key" not in options:
        options = options + ("--api-key", "none")
    out = admin("site", "create", "--user-pool", "default", "--name", name, *options).stdout.strip()
    return int(out.splitlines()[-1])


def create_user(email):
    out = admin("user", "create", "--email", email, "--first", "Copy", "--last", "User",
                stdin="Copy@User2026!\n").stdout.strip()
    return int(out.splitlines()[-1])


def _unknown_command(result, command):
    return result.returncode != 0 and ("unknown command '%s'" % command) in result.stderr


def define_template(site_id, event, subject, content, from_=None, bcc=None, enabled=True):
    """Creates a template with `svc-admin template set`, or with an INSERT
    when this build of svc-admin has no template command yet. Returns its id."""
    with tempfile.TemporaryDirectory() as tmp:
        sf, cf = os.path.join(tmp, "subject"), os.path.join(tmp, "content")
        with open(sf, "w", encoding="utf-8") as f:
            f.write(subject)
        with open(cf, "w", encoding="utf-8") as f:
            f.write(content)
        args = ["template", "set", "--site", str(site_id), "--event", event, "--subject-file", sf,
                "--content-file", cf, "--enabled", "true" if enabled else "false"]
        if from_ is not None:
            args += ["--from", from_]
        if bcc is not None:
            args += ["--bcc", bcc]
        result = admin(*args, check=False)
    if _unknown_command(result, "template"):
        sql("INSERT INTO svc_notifications (site_id, event, enabled, subject, content, `from`, bcc) VALUES "
            "(%d, %s, %d, %s, %s, %s, %s)" % (site_id, q(event), 1 if enabled else 0, q(subject), q(content),
                                                q(from_), q(bcc)))
    elif result.returncode != 0:
        raise RuntimeError("svc-admin template set failed: %s %s" % (result.stdout, result.stderr))
    return int(sql_value("SELECT id FROM svc_notifications WHERE site_id = %d AND event = %s" % (site_id, q(event))))


def define_merge_query(site_id, name, sql_text):
    """`svc-admin merge-query set`, or an INSERT while that command is missing."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "query.sql")
        with open(path, "w", encoding="utf-8") as f:
            f.write(sql_text)
        result = admin("merge-query", "set", "--site", str(site_id), "--name", name, "--sql-file", path,
                       check=False)
    if _unknown_command(result, "merge-query"):
        sql("INSERT INTO svc_merge_queries (site_id, name, sql_text) VALUES (%d, %s, %s)"
            % (site_id, q(name), q(sql_text)))
    elif result.returncode != 0:
        raise RuntimeError("svc-admin merge-query set failed: %s %s" % (result.stdout, result.stderr))


# --- requests and rows --------------------------------------------------------

def notify(body, site=None, headers=None, raw=None):
    hdrs = {}
    if site is not None:
        hdrs["site-id"] = str(site)
    hdrs.update(headers or {})
    return post(PATH, body=body, headers=hdrs, raw=raw)


def counts():
    row = sql("SELECT (SELECT COUNT(*) FROM svc_notification_log), (SELECT COUNT(*) FROM svc_related)")[0]
    return int(row[0]), int(row[1])


def _decode(value):
    return None if value is None else bytes.fromhex(value).decode("utf-8")


def log_rows(where):
    """Log rows as dicts; text columns travel as HEX so newlines survive."""
    rows = sql("SELECT id, site_id, notification_id, HEX(event), HEX(recipient), HEX(`from`), HEX(cc), HEX(bcc),"
               " HEX(subject), HEX(body), status, HEX(table_name), record_id, request_id,"
               " TIMESTAMPDIFF(SECOND, created_at, NOW()) FROM svc_notification_log WHERE %s ORDER BY id" % where)
    out = []
    for r in rows:
        d = dict(zip(LOG_COLUMNS, r))
        for k in ("event", "recipient", "from", "cc", "bcc", "subject", "body", "table_name"):
            d[k] = _decode(d[k])
        for k in ("id", "site_id", "notification_id", "record_id", "age"):
            d[k] = None if d[k] is None else int(d[k])
        out.append(d)
    return out


def request_id(reply):
    rid = reply.headers.get("x-request-id", "")
    assert rid, "reply without X-Request-Id: %r" % reply
    return rid


def rows_of(reply):
    return log_rows("request_id = %s" % q(request_id(reply)))


def links_of(log_id):
    return sql("SELECT master_table, master_id, linked_table, linked FROM svc_related"
               " WHERE linked_table = 'svc_notification_log' AND linked = %d" % log_id)


class NotificationTest(ApiTest):
    """Assertions shared by the notification tests."""

    def assertNothingWritten(self, reply, before):
        self.assertNotEqual(reply.status, 500, reply)
        self.assertEqual(rows_of(reply), [], reply)
        self.assertEqual(counts(), before, "rows were written for %r" % (reply,))

    def assertOneRow(self, reply, site):
        """The reply is exactly Success and wrote exactly one row of `site`."""
        self.assertReply(reply, 200, SUCCESS)
        self.assertEqual(reply.raw.strip(), b'{"status":"Success"}')
        rows = rows_of(reply)
        self.assertEqual(len(rows), 1, rows)
        row = rows[0]
        self.assertEqual(row["site_id"], site)
        # The sender may already have picked it up when it runs in the stack.
        sender_runs = svc_stack.stack_process_running("svc-sender")
        self.assertIn(row["status"], ("Pending", "Sent") if sender_runs else ("Pending",))
        self.assertIsNotNone(row["age"])
        self.assertTrue(0 <= row["age"] <= 60, row)
        return row


# --- the sites of this module ---------------------------------------------------

class S:
    """Ids filled by setUpModule."""


BASIC_SUBJECT = "Hello [name] [missing]"
BASIC_CONTENT = "<p>Hi [name], [count] [price] [flag] [missing] [note]</p>"


def setUpModule():
    S.a = create_site("notif-a-" + TAG, "--email-from", "Site A <a@site-a.example>")
    S.b = create_site("notif-b-" + TAG, "--email-from", "Site B <b@site-b.example>")
    S.key = "k-" + uuid.uuid4().hex
    S.keyed = create_site("notif-key-" + TAG, "--email-from", "K <k@site-k.example>", "--api-key", S.key)
    S.inactive = create_site("notif-off-" + TAG, "--email-from", "I <i@site-i.example>", "--active", "false")
    S.disabled = create_site("notif-dis-" + TAG, "--email-from", "D <d@site-d.example>", "--disable-email", "true")
    S.cc_email = "cc-%s@example.com" % TAG
    S.bcc_email = "bcc-%s@example.com" % TAG
    S.cc_user = create_user(S.cc_email)
    S.bcc_user = create_user(S.bcc_email)
    S.copies = create_site("notif-cc-" + TAG, "--email-from", "C <c@site-c.example>",
                           "--email-cc", str(S.cc_user), "--email-bcc", str(S.bcc_user))

    S.a_basic = define_template(S.a, "basic", BASIC_SUBJECT, BASIC_CONTENT)
    S.a_orders = define_template(S.a, "orders", "Order [order_id]", "<p>Thanks [customer]</p>",
                                 from_="Orders A <orders@site-a.example>", bcc="archive@site-a.example")
    S.a_off = define_template(S.a, "switched-off", "Off", "<p>off</p>", enabled=False)
    S.b_basic = define_template(S.b, "basic", "Site B says [name]", "<p>B [name]</p>")
    S.b_only = define_template(S.b, "only-b", "Only B", "<p>only b</p>")
    for site in (S.keyed, S.inactive, S.disabled, S.copies):
        define_template(site, "basic", BASIC_SUBJECT, BASIC_CONTENT)
    S.c_orders = define_template(S.copies, "orders", "Order [order_id]", "<p>Thanks [customer]</p>",
                                 bcc="tmpl-bcc@site-c.example")


def marker(kind="to"):
    return "%s-%s-%s@example.com" % (kind, TAG, uuid.uuid4().hex[:8])


# --- authentication ---------------------------------------------------------------

class AuthTest(NotificationTest):

    def body(self, event="basic"):
        return {"event": event, "email": marker(), "table": "auth_" + TAG, "master_id": 5, "data": {"name": "X"}}

    def test_missing_header_is_401_and_writes_nothing(self):
        before = counts()
        reply = notify(self.body())
        self.assertReply(reply, 401, UNAUTHORIZED)
        self.assertNothingWritten(reply, before)

    def test_malformed_site_ids_are_401_and_write_nothing(self):
        # Every value would reach an existing site (1, the demo site, which has
        # welcome-email) if it were parsed loosely.
        for header in ("site-id", "x-site-id"):
            for value in ("abc", "1 OR 1=1", "-1", "0", "1.5", "1abc", "0x1", "+1", "99999999999999999999999"):
                with self.subTest(header=header, value=value):
                    before = counts()
                    reply = notify(self.body("welcome-email"), headers={header: value})
                    self.assertReply(reply, 401, UNAUTHORIZED)
                    self.assertNothingWritten(reply, before)

    def test_unknown_site_is_401(self):
        unknown = int(sql_value("SELECT COALESCE(MAX(id), 0) + 1000 FROM svc_sites"))
        before = counts()
        reply = notify(self.body(), site=unknown)
        self.assertReply(reply, 401, UNAUTHORIZED)
        self.assertNothingWritten(reply, before)

    def test_inactive_site_is_401(self):
        before = counts()
        reply = notify(self.body(), site=S.inactive)
        self.assertReply(reply, 401, UNAUTHORIZED)
        self.assertNothingWritten(reply, before)

    def test_site_id_and_x_site_id_both_select_the_site(self):
        for header in ("site-id", "x-site-id"):
            with self.subTest(header=header):
                to = marker()
                reply = notify({"event": "basic", "email": to, "data": {"name": header}}, headers={header: str(S.a)})
                row = self.assertOneRow(reply, S.a)
                self.assertEqual(row["recipient"], to)
                self.assertEqual(row["subject"], "Hello %s [missing]" % header)

    def test_body_app_id_never_selects_the_site(self):
        # Both sites have "basic", with different subjects: the header decides.
        to = marker()
        reply = notify({"event": "basic", "email": to, "appID": S.b, "site_id": S.b, "site-id": S.b,
                        "data": {"name": "Ada"}}, site=S.a)
        row = self.assertOneRow(reply, S.a)
        self.assertEqual(row["notification_id"], S.a_basic)
        self.assertEqual(row["subject"], "Hello Ada [missing]")
        # An event that only site B has is not found for site A, whatever the body says.
        before = counts()
        reply = notify({"event": "only-b", "email": marker(), "appID": S.b}, site=S.a)
        self.assertReply(reply, 200, NOT_FOUND)
        self.assertNothingWritten(reply, before)
        # And the body alone authenticates nothing.
        before = counts()
        reply = notify({"event": "basic", "email": marker(), "appID": S.a})
        self.assertReply(reply, 401, UNAUTHORIZED)
        self.assertNothingWritten(reply, before)

    def test_site_with_api_key_needs_x_site_key(self):
        for label, headers in (("missing", {}), ("empty", {"x-site-key": ""}),
                               ("wrong", {"x-site-key": S.key + "x"}), ("prefix", {"x-site-key": S.key[:-1]}),
                               ("other case", {"x-site-key": S.key.upper()})):
            with self.subTest(key=label):
                before = counts()
                reply = notify(self.body(), site=S.keyed, headers=headers)
                self.assertReply(reply, 401, UNAUTHORIZED)
                self.assertNothingWritten(reply, before)
        to = marker()
        reply = notify({"event": "basic", "email": to}, site=S.keyed, headers={"x-site-key": S.key})
        row = self.assertOneRow(reply, S.keyed)
        self.assertEqual(row["recipient"], to)
        reply = notify({"event": "basic", "email": marker()}, headers={"x-site-id": str(S.keyed),
                                                                        "x-site-key": S.key})
        self.assertOneRow(reply, S.keyed)

    def test_missing_header_is_401_even_when_the_fields_are_bad(self):
        # The spec: 401 when the header is missing or invalid. An anonymous
        # caller gets no field-by-field validation answers.
        for raw in ('{"event": 5}', '{}', '{"event": "basic", "email": "not-an-address", "master_id": "x"}'):
            with self.subTest(body=raw):
                before = counts()
                reply = notify(None, raw=raw)
                self.assertReply(reply, 401, UNAUTHORIZED)
                self.assertNothingWritten(reply, before)
        # Nor does a body that is not a JSON object: the site is checked before
        # the body is read (docs/decisions.md, "Dispatch order").
        for raw in ('{"event":', "[]"):
            with self.subTest(body=raw):
                before = counts()
                reply = notify(None, raw=raw)
                self.assertReply(reply, 401, UNAUTHORIZED)
                self.assertNothingWritten(reply, before)

    def test_site_is_checked_before_the_body_is_parsed(self):
        unknown = int(sql_value("SELECT COALESCE(MAX(id), 0) + 1000 FROM svc_sites"))
        callers = (("no header", {}), ("malformed id", {"site-id": "1x"}), ("unknown site", {"site-id": str(unknown)}),
                   ("inactive site", {"site-id": str(S.inactive)}),
                   ("wrong key", {"site-id": str(S.keyed), "x-site-key": S.key + "x"}))
        bodies = ('{"event":', "[]", "", "null", '"basic"', '{"event": "basic"} trailing', b'{"event": "\xff"}')
        for label, headers in callers:
            for raw in bodies:
                with self.subTest(caller=label, body=raw):
                    before = counts()
                    reply = notify(None, headers=headers, raw=raw)
                    self.assertReply(reply, 401, UNAUTHORIZED)
                    self.assertNothingWritten(reply, before)
        # An authenticated site still gets the field-level answer.
        self.assertValidation(notify(None, site=S.a, raw='{"event":'), "body")

    def test_site_is_checked_before_the_body_limit(self):
        # nginx's client_max_body_size for /message/ equals the route's limit
        # (1 MiB), so only a request straight to the workers' FastCGI socket
        # shows the order: a caller that is no site gets 401 before any byte
        # of an oversized body is read; a site gets the 413.
        sock = os.path.join(svc_stack.STACK_DIR, "svc-fcgi.sock")
        big = json.dumps({"event": "basic", "email": marker(), "data": {"name": "x" * (1024 * 1024)}}).encode()
        small = json.dumps({"event": "basic", "email": marker()}).encode()
        cases = (("declared and sent", big, True, {}), ("sent without a length", big, False, {}),
                 ("declared only", small, True, {"CONTENT_LENGTH": str(2 * 1024 * 1024)}))
        for label, body, with_length, params in cases:
            for caller, site_params, expected in (("no header", {}, (401, UNAUTHORIZED)),
                                                  ("inactive site", {"HTTP_SITE_ID": str(S.inactive)},
                                                   (401, UNAUTHORIZED)),
                                                  ("site", {"HTTP_SITE_ID": str(S.a)}, (413, TOO_LARGE))):
                with self.subTest(body=label, caller=caller):
                    before = counts()
                    reply = fcgi_client.request(sock, "POST", PATH, body=body, content_length=with_length,
                                                params=dict(params, **site_params))
                    self.assertEqual((reply.status, reply.json), expected, reply)
                    self.assertEqual(counts(), before)


# --- success, the row and the link ------------------------------------------------

class SuccessTest(NotificationTest):

    def test_success_writes_one_pending_row(self):
        to = marker()
        before = counts()
        reply = notify({"event": "basic", "email": to, "data": {"name": "Ada", "count": 3, "price": 4.5,
                                                                "flag": True, "note": "n"}}, site=S.a)
        row = self.assertOneRow(reply, S.a)
        self.assertEqual(row["event"], "basic")
        self.assertEqual(row["notification_id"], S.a_basic)
        self.assertEqual(row["recipient"], to)
        self.assertEqual(row["from"], "Site A <a@site-a.example>")
        self.assertEqual(row["cc"], "")
        self.assertEqual(row["bcc"], "")
        self.assertEqual(row["subject"], "Hello Ada [missing]")
        self.assertEqual(row["body"], "<p>Hi Ada, 3 4.5 true [missing] n</p>")
        self.assertIsNone(row["table_name"])
        self.assertIsNone(row["record_id"])
        self.assertEqual(links_of(row["id"]), [])
        self.assertEqual(counts(), (before[0] + 1, before[1]))

    def test_template_from_and_bcc_are_used(self):
        to = marker()
        reply = notify({"event": "orders", "email": to, "data": {"order_id": "A-1", "customer": "Bob"}}, site=S.a)
        row = self.assertOneRow(reply, S.a)
        self.assertEqual(row["notification_id"], S.a_orders)
        self.assertEqual(row["from"], "Orders A <orders@site-a.example>")
        self.assertEqual(row["recipient"], to)
        self.assertEqual(row["bcc"], "archive@site-a.example")
        self.assertEqual(row["subject"], "Order A-1")
        self.assertEqual(row["body"], "<p>Thanks Bob</p>")

    def test_table_and_master_id_link_the_row(self):
        table = "orders_" + TAG
        for master_id, expect in ((77, 77), ("78", 78)):
            with self.subTest(master_id=master_id):
                before = counts()
                reply = notify({"event": "basic", "email": marker(), "table": table, "master_id": master_id},
                               site=S.a)
                row = self.assertOneRow(reply, S.a)
                self.assertEqual(row["table_name"], table)
                self.assertEqual(row["record_id"], expect)
                self.assertEqual(links_of(row["id"]), [[table, str(expect), "svc_notification_log", str(row["id"])]])
                self.assertEqual(counts(), (before[0] + 1, before[1] + 1))

    def test_table_without_master_id_links_nothing(self):
        table = "nolink_" + TAG
        before = counts()
        reply = notify({"event": "basic", "email": marker(), "table": table}, site=S.a)
        row = self.assertOneRow(reply, S.a)
        self.assertEqual(links_of(row["id"]), [])
        self.assertEqual(sql("SELECT id FROM svc_related WHERE master_table = %s" % q(table)), [])
        self.assertEqual(counts(), (before[0] + 1, before[1]))

    def test_master_id_without_table_links_nothing(self):
        before = counts()
        reply = notify({"event": "basic", "email": marker(), "master_id": 79}, site=S.a)
        row = self.assertOneRow(reply, S.a)
        self.assertEqual(links_of(row["id"]), [])
        self.assertEqual(counts(), (before[0] + 1, before[1]))

    def test_log_row_and_link_share_one_transaction(self):
        # A trigger (root's, only for this table label) makes the link insert
        # fail: the log row written just before must be rolled back with it.
        table = "fail_" + TAG
        trigger = "trg_notif_fail_" + TAG
        sql("CREATE TRIGGER %s BEFORE INSERT ON svc_related FOR EACH ROW SET NEW.master_id ="
            " IF(NEW.master_table = %s, NULL, NEW.master_id)" % (trigger, q(table)))
        self.addCleanup(sql, "DROP TRIGGER IF EXISTS %s" % trigger)
        before = counts()
        reply = notify({"event": "basic", "email": marker(), "table": table, "master_id": 9}, site=S.a)
        self.assertReply(reply, 500, GENERIC_500)
        self.assertEqual(rows_of(reply), [])
        self.assertEqual(counts(), before)
        sql("DROP TRIGGER %s" % trigger)
        # The worker is fine afterwards.
        reply = notify({"event": "basic", "email": marker(), "table": table, "master_id": 9}, site=S.a)
        row = self.assertOneRow(reply, S.a)
        self.assertEqual(links_of(row["id"]), [[table, "9", "svc_notification_log", str(row["id"])]])


# --- disabled e-mail, unknown and disabled events ----------------------------------

class EventTest(NotificationTest):

    def check_failed(self, site, body, expected):
        before = counts()
        reply = notify(body, site=site)
        self.assertReply(reply, 200, expected)
        self.assertNothingWritten(reply, before)

    def test_disabled_site(self):
        self.check_failed(S.disabled, {"event": "basic", "email": marker(), "table": "t", "master_id": 1}, DISABLED)
        # Even for an event it does not have.
        self.check_failed(S.disabled, {"event": "nope-" + TAG, "email": marker()}, DISABLED)

    def test_unknown_event(self):
        self.check_failed(S.a, {"event": "nope-" + TAG, "email": marker(), "table": "t", "master_id": 1}, NOT_FOUND)

    def test_disabled_template(self):
        self.check_failed(S.a, {"event": "switched-off", "email": marker()}, NOT_FOUND)

    def test_event_of_another_site_is_not_used(self):
        self.check_failed(S.a, {"event": "only-b", "email": marker()}, NOT_FOUND)

    def test_event_is_matched_exactly(self):
        # Event names are identifiers: no case folding, no accent folding, no
        # trailing-space padding (the column's collation does all three).
        for event in ("BASIC", "basic ", " basic", "b\u00e1sic", "basi%", "bas_c"):
            with self.subTest(event=event):
                self.check_failed(S.a, {"event": event, "email": marker()}, NOT_FOUND)


# --- merging -------------------------------------------------------------------------

class MergeTest(NotificationTest):

    def send(self, data, event="basic"):
        reply = notify({"event": event, "email": marker(), "data": data}, site=S.a)
        return self.assertOneRow(reply, S.a)

    def test_values_are_html_escaped_in_the_body(self):
        row = self.send({"name": "<script>alert('x')</script>", "note": 'a & "b"'})
        self.assertEqual(row["body"], "<p>Hi &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;, [count] [price] [flag]"
                                      " [missing] a &amp; &quot;b&quot;</p>")
        self.assertNotIn("<script", row["body"])

    def test_cr_lf_removed_in_the_subject(self):
        row = self.send({"name": "Ada\r\nBcc: evil@example.com\nX-Evil: 1\r"})
        self.assertEqual(row["subject"], "Hello AdaBcc: evil@example.comX-Evil: 1 [missing]")
        self.assertNotIn("\r", row["subject"])
        self.assertNotIn("\n", row["subject"])

    def test_placeholders_without_value_stay(self):
        row = self.send({"name": "Ada"})
        self.assertEqual(row["subject"], "Hello Ada [missing]")
        self.assertEqual(row["body"], "<p>Hi Ada, [count] [price] [flag] [missing] [note]</p>")

    def test_values_are_not_substituted_again(self):
        row = self.send({"name": "[note] [missing]", "note": "[name]"})
        self.assertEqual(row["subject"], "Hello [note] [missing] [missing]")
        self.assertEqual(row["body"], "<p>Hi [note] [missing], [count] [price] [flag] [missing] [name]</p>")

    def test_numbers_and_booleans_merge_as_text(self):
        row = self.send({"name": 42, "count": -7, "price": 19.99, "flag": False, "note": True})
        self.assertEqual(row["subject"], "Hello 42 [missing]")
        self.assertEqual(row["body"], "<p>Hi 42, -7 19.99 false [missing] true</p>")

    def test_unicode_values_survive(self):
        row = self.send({"name": "Zoë 😀 Łódź"})
        self.assertEqual(row["subject"], "Hello Zoë 😀 Łódź [missing]")


# --- recipients ---------------------------------------------------------------------

class RecipientTest(NotificationTest):

    def test_email_list(self):
        a, b = marker("a"), marker("b")
        reply = notify({"event": "basic", "email": "%s, %s" % (a, b)}, site=S.a)
        row = self.assertOneRow(reply, S.a)
        self.assertEqual([x.strip() for x in row["recipient"].replace(";", ",").split(",")], [a, b])

    def test_set_email_field(self):
        to = marker()
        reply = notify({"event": "basic", "setEmailField": "contact", "data": {"contact": to, "name": "Ada"}},
                       site=S.a)
        row = self.assertOneRow(reply, S.a)
        self.assertEqual(row["recipient"], to)
        self.assertEqual(row["subject"], "Hello Ada [missing]")

    def test_none_sends_to_bcc_only(self):
        reply = notify({"event": "orders", "email": "NONE", "data": {"order_id": "N1"}}, site=S.a)
        row = self.assertOneRow(reply, S.a)
        self.assertEqual(row["recipient"], "")
        self.assertEqual(row["cc"], "")
        self.assertEqual(row["bcc"], "archive@site-a.example")
        # NONE through setEmailField as well.
        reply = notify({"event": "orders", "setEmailField": "to", "data": {"to": "NONE"}}, site=S.a)
        row = self.assertOneRow(reply, S.a)
        self.assertEqual(row["recipient"], "")
        self.assertEqual(row["bcc"], "archive@site-a.example")

    def test_none_without_any_bcc_is_no_recipient(self):
        before = counts()
        reply = notify({"event": "basic", "email": "NONE", "table": "t_" + TAG, "master_id": 3}, site=S.a)
        self.assertReply(reply, 200, NO_RECIPIENT)
        self.assertNothingWritten(reply, before)

    def test_none_never_copies_the_site_cc_user(self):
        # The spec: NONE sends only to BCC addresses. The site's CC user is a
        # visible copy, so it is left out too.
        reply = notify({"event": "basic", "email": "NONE"}, site=S.copies)
        row = self.assertOneRow(reply, S.copies)
        self.assertEqual((row["recipient"], row["cc"], row["bcc"]), ("", "", S.bcc_email))
        reply = notify({"event": "orders", "setEmailField": "to", "data": {"to": "NONE", "order_id": "N2"}},
                       site=S.copies)
        row = self.assertOneRow(reply, S.copies)
        self.assertEqual((row["recipient"], row["cc"]), ("", ""))
        self.assertEqual(row["bcc"].split(","), [S.bcc_email, "tmpl-bcc@site-c.example"])

    def test_none_with_only_a_cc_user_is_no_recipient(self):
        site = create_site("notif-cconly-" + TAG, "--email-from", "O <o@site-o.example>",
                           "--email-cc", str(S.cc_user))
        define_template(site, "basic", BASIC_SUBJECT, BASIC_CONTENT)
        before = counts()
        reply = notify({"event": "basic", "email": "NONE", "table": "t_" + TAG, "master_id": 6}, site=site)
        self.assertReply(reply, 200, NO_RECIPIENT)
        self.assertNothingWritten(reply, before)
        # With a recipient the CC user is copied as usual.
        to = marker()
        row = self.assertOneRow(notify({"event": "basic", "email": to}, site=site), site)
        self.assertEqual((row["recipient"], row["cc"], row["bcc"]), (to, S.cc_email, ""))

    def test_no_email_and_no_field_is_no_recipient(self):
        for body in ({"event": "basic"}, {"event": "basic", "email": ""},
                     {"event": "basic", "setEmailField": "absent", "data": {"name": "x"}},
                     {"event": "basic", "setEmailField": "to", "data": {"to": ""}}):
            with self.subTest(body=body):
                before = counts()
                reply = notify(body, site=S.a)
                self.assertReply(reply, 200, NO_RECIPIENT)
                self.assertNothingWritten(reply, before)

    def test_invalid_addresses_are_400(self):
        bad = ["not-an-address", "a@b.c\r\nBcc: evil@example.com", '"x"@y', "a@example.com, not-an-address",
               "Ada <ada@example.com>", "a@example.com\nb@example.com", "a@", "@example.com",
               "a b@example.com", "a@example.com;;x"]
        for value in bad:
            with self.subTest(field="email", value=value):
                before = counts()
                reply = notify({"event": "basic", "email": value, "table": "t_" + TAG, "master_id": 4}, site=S.a)
                self.assertValidation(reply, "email")
                self.assertNothingWritten(reply, before)
                self.assertNotIn(b"evil@example.com", reply.raw)
            with self.subTest(field="setEmailField", value=value):
                before = counts()
                reply = notify({"event": "basic", "setEmailField": "to", "data": {"to": value}}, site=S.a)
                self.assertEqual(reply.status, 400, reply)
                self.assertEqual(reply.json.get("message"), "Validation error", reply)
                self.assertNothingWritten(reply, before)

    def test_site_cc_and_bcc_users_and_template_bcc(self):
        to = marker()
        reply = notify({"event": "orders", "email": to, "data": {"order_id": "C1"}}, site=S.copies)
        row = self.assertOneRow(reply, S.copies)
        self.assertEqual(row["notification_id"], S.c_orders)
        self.assertEqual(row["recipient"], to)
        self.assertEqual(row["from"], "C <c@site-c.example>")
        self.assertEqual(row["cc"], S.cc_email)
        self.assertEqual(row["bcc"].split(","), [S.bcc_email, "tmpl-bcc@site-c.example"])
        # Without a template bcc: only the site's user.
        reply = notify({"event": "basic", "email": to}, site=S.copies)
        row = self.assertOneRow(reply, S.copies)
        self.assertEqual(row["cc"], S.cc_email)
        self.assertEqual(row["bcc"], S.bcc_email)
        # NONE works here because the site has a BCC user.
        reply = notify({"event": "basic", "email": "NONE"}, site=S.copies)
        row = self.assertOneRow(reply, S.copies)
        self.assertEqual(row["recipient"], "")
        self.assertEqual(row["bcc"], S.bcc_email)


# --- validation -------------------------------------------------------------------

class ValidationTest(NotificationTest):

    def test_fields(self):
        good = {"event": "basic", "email": marker(), "data": {"name": "x"}}
        cases = [
            ("event", {"email": marker()}),
            ("event", {"event": "", "email": marker()}),
            ("event", {"event": 5, "email": marker()}),
            ("event", {"event": ["basic"], "email": marker()}),
            ("event", {"event": "e" * 191, "email": marker()}),
            ("data", dict(good, data="name=x")),
            ("data", dict(good, data=["x"])),
            ("data", dict(good, data=5)),
            ("master_id", dict(good, table="t", master_id="abc")),
            ("master_id", dict(good, table="t", master_id=-5)),
            ("master_id", dict(good, table="t", master_id=0)),
            ("master_id", dict(good, table="t", master_id=1.5)),
            ("master_id", dict(good, table="t", master_id="1 OR 1=1")),
            ("master_id", dict(good, table="t", master_id="99999999999999999999")),
            ("table", dict(good, table="demo_orders; DROP TABLE x", master_id=1)),
            ("table", dict(good, table="a b", master_id=1)),
            ("table", dict(good, table="`demo_orders`", master_id=1)),
            ("table", dict(good, table="svc.demo_orders", master_id=1)),
            ("table", dict(good, table="t" * 65, master_id=1)),
            ("table", dict(good, table=5, master_id=1)),
            ("email", dict(good, email=5)),
            ("setEmailField", {"event": "basic", "setEmailField": ["to"], "data": {"to": marker()}}),
            ("SQL", dict(good, SQL=5)),
        ]
        for field, body in cases:
            with self.subTest(field=field, body=json.dumps(body)[:120]):
                before = counts()
                reply = notify(body, site=S.a)
                self.assertValidation(reply, field)
                self.assertNothingWritten(reply, before)

    def test_all_errors_at_once(self):
        before = counts()
        reply = notify({"event": 1, "data": "x", "master_id": "abc", "table": "a b"}, site=S.a)
        self.assertValidation(reply, "event", "data", "master_id", "table")
        self.assertNothingWritten(reply, before)

    def test_bodies_that_are_not_json_objects(self):
        for raw in ('{"event": "basic", "email": ', "{'event': 'basic'}", "[]", '"basic"', "null", "",
                    '{"event": "basic"} trailing',
                    b'{"event": "basic", "email": "nul@example.com"}\x00 trailing garbage'):
            with self.subTest(raw=raw):
                before = counts()
                reply = notify(None, site=S.a, raw=raw)
                self.assertValidation(reply, "body")
                self.assertNothingWritten(reply, before)

    def test_body_that_is_not_utf8(self):
        # Not UTF-8, so not JSON (RFC 8259 section 8.1): a 400 on body, never a 500.
        before = counts()
        reply = notify(None, site=S.a, raw=b'{"event": "basic", "email": "' + marker().encode() +
                       b'", "data": {"name": "\xff\xfe caf\xe9"}}')
        self.assertValidation(reply, "body")
        self.assertNothingWritten(reply, before)

    def test_body_over_one_mebibyte_is_413(self):
        before = counts()
        body = {"event": "basic", "email": marker(), "data": {"name": "x" * (1100 * 1024)}}
        reply = notify(body, site=S.a)
        self.assertReply(reply, 413, TOO_LARGE)
        self.assertNothingWritten(reply, before)

    def test_large_body_under_the_limit_is_accepted(self):
        # 900 KiB of values in the body (not the subject) is fine.
        reply = notify({"event": "basic", "email": marker(), "data": {"note": "y" * (900 * 1024)}}, site=S.a)
        row = self.assertOneRow(reply, S.a)
        self.assertEqual(len(row["body"]), len("<p>Hi [name], [count] [price] [flag] [missing] </p>") + 900 * 1024)

    def test_long_subject_value_is_never_a_500(self):
        # svc_notification_log.subject is VARCHAR(998): a long merged subject
        # must be refused (400) or shortened, not fail the INSERT.
        before = counts()
        reply = notify({"event": "basic", "email": marker(), "data": {"name": "s" * 1200}}, site=S.a)
        self.assertNotEqual(reply.status, 500, reply)
        self.assertIn(reply.status, (200, 400), reply)
        if reply.status == 400:
            self.assertEqual(reply.json.get("message"), "Validation error", reply)
            self.assertNothingWritten(reply, before)
        else:
            row = self.assertOneRow(reply, S.a)
            self.assertTrue(row["subject"].startswith("Hello sss"), row["subject"][:40])


# --- end to end through svc-sender ---------------------------------------------------

class EndToEndTest(NotificationTest):

    def setUp(self):
        super().setUp()
        svc_stack.require_sender(self)

    def test_notification_is_delivered_with_bcc_only_in_the_envelope(self):
        to = marker("e2e")
        order = "E2E-" + uuid.uuid4().hex[:10]
        seen = svc_stack.mail_files()
        reply = notify({"event": "orders", "email": to, "data": {"order_id": order, "customer": "Eve"}}, site=S.a)
        row = self.assertOneRow(reply, S.a)
        # One copy per recipient (issue 36): the Bcc address gets its own.
        envelope = set()
        for msg in svc_stack.wait_for_mails(lambda m: m.get("Subject") == "Order " + order, 2, after=seen):
            self.assertEqual(str(msg.get("To")), to)
            self.assertEqual(msg.get("Subject"), "Order " + order)
            self.assertIn("orders@site-a.example", str(msg.get("From")))
            envelope.add(str(msg.get("X-Sink-Rcpt-To", "")).strip().lower())
            self.assertIsNone(msg.get("Bcc"))
            for name, value in msg.items():
                if name.lower() not in ("x-sink-rcpt-to", "x-sink-mail-from"):
                    self.assertNotIn("archive@site-a.example", str(value).lower(), name)
        self.assertEqual(envelope, {to.lower(), "archive@site-a.example"})
        deadline = time.time() + 10
        while time.time() < deadline and rows_of(reply)[0]["status"] != "Sent":
            time.sleep(0.2)
        self.assertEqual(rows_of(reply)[0]["status"], "Sent", row)

    def test_none_is_delivered_to_bcc_addresses_only(self):
        order = "NONE-" + uuid.uuid4().hex[:10]
        seen = svc_stack.mail_files()
        reply = notify({"event": "orders", "email": "NONE", "data": {"order_id": order}}, site=S.copies)
        self.assertOneRow(reply, S.copies)
        envelope = []
        # One copy per recipient (issue 36).
        for msg in svc_stack.wait_for_mails(lambda m: m.get("Subject") == "Order " + order, 2, after=seen):
            envelope.append(str(msg.get("X-Sink-Rcpt-To", "")).strip().lower())
            self.assertIsNone(msg.get("Cc"))
            self.assertIsNone(msg.get("Bcc"))
            for name, value in msg.items():
                if name.lower() not in ("x-sink-rcpt-to", "x-sink-mail-from"):
                    for address in (S.cc_email, S.bcc_email, "tmpl-bcc@site-c.example"):
                        self.assertNotIn(address.lower(), str(value).lower(), name)
        self.assertEqual(sorted(envelope), sorted([S.bcc_email.lower(), "tmpl-bcc@site-c.example"]))


if __name__ == "__main__":
    svc_stack.main()

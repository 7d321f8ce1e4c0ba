"""The Mail capability of the site management API (issue 49, design "Site
administrators and the site management API"; docs/api.md "Mail"), through
nginx, real workers, MariaDB, svc-sender and the SMTP sink, and the same
through svc-admin.

- The notification log of the site only: filters (status, event,
  recipient, since/until) each narrow it, keyset pages with a cursor bound
  to the filters (a changed one is 400); another site's mail is never
  listed, and its id through this site's path is 404 "Message not found".
- One mail: the message as svc-sender builds it (a Pending one-time link
  redacted), its status, attempts, last error, bounces and suppressions.
- Resend: a Failed mail goes out again through svc-sender to the sink; a
  Sent one is 409; a viewer, another site's admin and an admin without a
  second factor are refused.
- Suppressions: listed in pages, added and removed (admin), never another
  site's; the bounce-rate guard's state.
- Every change writes one svc_admin_audit row ("mail.resend",
  "mail.suppress", "mail.unsuppress"), actor the admin's id, or "operator"
  from svc-admin (outbox list|show|retry, suppression list|add|remove).
"""

import datetime
import re
import uuid

import svc_stack
from procs import wait_until
from site_admins import Admin, audit_rows, create_site
from svc_stack import ApiTest, admin, q, require_sender, sql, sql_value, wait_for_outbox_mail

FORBIDDEN = {"status": "Failed", "message": "Forbidden"}
SECOND_FACTOR = {"status": "Failed", "message": "Second factor required for site administration"}
UNAUTHORIZED = {"status": "Failed", "message": "Unauthorized"}
NOT_FOUND = {"status": "Failed", "message": "Message not found"}
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJlLXBhcnQ"
TIME = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"


def new_event():
    return "mail-admin-" + uuid.uuid4().hex[:10]


# Every row a test here makes, deleted at the end: a Pending row left behind
# would be an old Pending row to `svc-admin doctor`, a Failed one a row to
# `outbox purge` of another file.
MADE = []


def hours_ago(hours, minutes=0):
    """A DATETIME text (UTC) this long ago, to the whole minute."""
    t = datetime.datetime.now(datetime.timezone.utc).replace(second=0, microsecond=0)
    return (t - datetime.timedelta(hours=hours, minutes=minutes)).strftime("%Y-%m-%d %H:%M:%S")


def rfc3339(datetime_text):
    return datetime_text.replace(" ", "T") + "Z"


def insert_mail(site, event, recipient, status="Sent", created_at=None, subject="Hello", body="<p>Hi <b>you</b></p>",
                last_error=None, attempts=0):
    """One outbox row as svc-sender leaves it; returns its id. Pending rows are due in a day, so the
    stack's svc-sender leaves them alone."""
    created = q(created_at) if created_at else "UTC_TIMESTAMP()"
    sql("INSERT INTO svc_notification_log (site_id, event, recipient, `from`, subject, body, status, attempts,"
        " last_error, created_at, next_attempt_at, sent_at) VALUES (%d, %s, %s, 'Shop <no-reply@shop.example>', %s, %s,"
        " %s, %d, %s, %s, UTC_TIMESTAMP() + INTERVAL 1 DAY, %s)"
        % (site, q(event), q(recipient), q(subject), q(body), q(status), attempts,
           q(last_error) if last_error else "NULL", created, created if status == "Sent" else "NULL"))
    MADE.append(int(sql_value("SELECT MAX(id) FROM svc_notification_log WHERE event = %s" % q(event))))
    return MADE[-1]


def ids(reply, key="mail"):
    return [row["id"] for row in reply.json[key]]


class SiteAdminMailTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    @classmethod
    def setUpClass(cls):
        cls.site = create_site("Mail A")
        cls.other_site = create_site("Mail B")
        cls.owner = Admin(cls.site, "owner")
        cls.admin = Admin(cls.site, "admin")
        cls.viewer = Admin(cls.site, "viewer")
        cls.plain_admin = Admin(cls.site, "admin", second_factor=False)
        cls.stranger = Admin(cls.other_site, "owner")

    @classmethod
    def tearDownClass(cls):
        if MADE:
            sql("DELETE FROM svc_notification_log WHERE id IN (%s)" % ",".join(map(str, MADE)))

    def refused_everywhere(self, method, path, body=None, query=None):
        """Every caller but an admin of the site with a second factor is refused, the same way on each route."""
        self.assertExact(self.owner.call(method, path, body, token="x.y.z", query=query), 401, UNAUTHORIZED)
        self.assertExact(self.stranger.call(method, path, body, site=self.site, query=query), 403, FORBIDDEN)
        self.assertExact(self.plain_admin.call(method, path, body, query=query), 403, SECOND_FACTOR)

    def test_who_may_read_and_who_may_write(self):
        row = insert_mail(self.site, new_event(), svc_stack.unique_email("who"), status="Failed", last_error="554 no")
        for path in ("/mail", "/mail/%d" % row, "/suppressions", "/bounce-guard"):
            self.refused_everywhere("GET", path)
            self.assertReply(self.viewer.call("GET", path), 200)
        address = svc_stack.unique_email("who")
        writes = (("POST", "/mail/%d/resend" % row, None), ("POST", "/suppressions", {"email": address}),
                  ("DELETE", "/suppressions", None))
        for method, path, body in writes:
            query = {"email": address} if method == "DELETE" else None
            self.refused_everywhere(method, path, body, query=query)
            self.assertExact(self.viewer.call(method, path, body, query=query), 403, FORBIDDEN)
        # Nothing changed.
        self.assertEqual(sql_value("SELECT status FROM svc_notification_log WHERE id = %d" % row), "Failed")
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_mail_suppressions WHERE address = %s" % q(address)), "0")

    def test_filters_each_narrow_the_log(self):
        event, other_event = new_event(), new_event()
        ann, bob = svc_stack.unique_email("ann"), svc_stack.unique_email("bob")
        t = [hours_ago(5 - i) for i in range(5)]  # five whole minutes an hour apart, oldest first
        sent_ann = insert_mail(self.site, event, ann, created_at=t[0])
        failed_bob = insert_mail(self.site, event, bob, status="Failed", created_at=t[1],
                                 last_error="550 5.1.1 no such user", attempts=1)
        pending_ann = insert_mail(self.site, event, ann, status="Pending", created_at=t[2])
        other = insert_mail(self.site, other_event, ann, created_at=t[3])
        theirs = insert_mail(self.other_site, event, ann, created_at=t[4])

        by_event = self.viewer.call("GET", "/mail", query={"event": event})
        self.assertReply(by_event, 200)
        self.assertEqual(ids(by_event), [pending_ann, failed_bob, sent_ann])  # newest first, this site only
        self.assertIsNone(by_event.json["next_cursor"])
        failed = by_event.json["mail"][1]
        self.assertEqual((failed["status"], failed["recipient"], failed["attempts"], failed["last_error"]),
                         ("Failed", bob, 1, "550 5.1.1 no such user"))
        self.assertEqual(failed["created_at"], rfc3339(t[1]))
        self.assertIsNone(failed["sent_at"])
        self.assertRegex(by_event.json["mail"][0]["next_attempt_at"], TIME)
        self.assertEqual(by_event.json["mail"][2]["sent_at"], rfc3339(t[0]))

        def listed(**query):
            reply = self.owner.call("GET", "/mail", query=query)
            self.assertReply(reply, 200)
            return ids(reply)

        self.assertEqual(listed(event=event, status="Failed"), [failed_bob])
        self.assertEqual(listed(recipient=ann), [other, pending_ann, sent_ann])
        self.assertEqual(listed(recipient=ann.upper(), event=event), [pending_ann, sent_ann])
        self.assertEqual(listed(event=event, since=rfc3339(t[1]), until=rfc3339(t[2])), [failed_bob])
        self.assertEqual(listed(recipient=ann, since=rfc3339(hours_ago(2, 30))), [other])
        self.assertEqual(listed(event=event, until=rfc3339(t[1])), [sent_ann])
        tomorrow = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)).strftime("%Y-%m-%d")
        self.assertEqual(listed(event=event, until=tomorrow), [pending_ann, failed_bob, sent_ann])  # a date: midnight
        by_status = listed(status="Pending", limit=100)
        self.assertIn(pending_ann, by_status)
        self.assertNotIn(sent_ann, by_status)
        self.assertNotIn(theirs, listed(limit=100, since=rfc3339(t[4])))
        # Another site's admin sees its own row only.
        self.assertEqual(ids(self.stranger.call("GET", "/mail", query={"event": event})), [theirs])

        # Bad filters: 400 naming each.
        self.assertOnlyFields(self.owner.call("GET", "/mail", query={"status": "Lost"}), "status")
        self.assertOnlyFields(self.owner.call("GET", "/mail", query={"recipient": "not an address"}), "recipient")
        self.assertOnlyFields(self.owner.call("GET", "/mail", query={"since": "2026-02-30", "until": "yesterday"}),
                              "since", "until")
        self.assertOnlyFields(self.owner.call("GET", "/mail", query={"limit": 101}), "limit")

    def test_pages_with_a_cursor_bound_to_the_filters(self):
        event = new_event()
        minute = hours_ago(1)
        made = [insert_mail(self.site, event, svc_stack.unique_email("page"), created_at=minute) for _ in range(3)]
        first = self.owner.call("GET", "/mail", query={"event": event, "limit": 2})
        self.assertReply(first, 200)
        self.assertEqual(ids(first), [made[2], made[1]])  # same second: newest id first
        cursor = first.json["next_cursor"]
        self.assertTrue(cursor)
        second = self.viewer.call("GET", "/mail", query={"event": event, "limit": 2, "cursor": cursor})
        self.assertEqual(ids(second), [made[0]])
        self.assertIsNone(second.json["next_cursor"])
        tampered = cursor[:-1] + ("A" if cursor[-1] != "A" else "B")
        self.assertOnlyFields(self.owner.call("GET", "/mail", query={"event": event, "cursor": tampered}), "cursor")
        # Made for another filter, another list or another site.
        self.assertOnlyFields(self.owner.call("GET", "/mail", query={"event": event + "x", "cursor": cursor}), "cursor")
        self.assertOnlyFields(self.owner.call("GET", "/suppressions", query={"cursor": cursor}), "cursor")
        self.assertOnlyFields(self.stranger.call("GET", "/mail", query={"event": event, "cursor": cursor}), "cursor")

    def test_one_mail_as_the_sender_renders_it_never_another_sites(self):
        event = new_event()
        to = svc_stack.unique_email("shown")
        row = insert_mail(self.site, event, to, status="Pending", subject="Reset your password",
                          body='<p>Hello &amp; welcome</p><p><a href="https://shop.example/reset#%s">Reset</a></p>' % JWT)
        sql("INSERT INTO svc_mail_bounces (site_id, log_id, address, kind, status) VALUES (%d, %d, %s, 'soft', '4.2.2')"
            % (self.site, row, q(to)))
        sql("INSERT INTO svc_mail_suppressions (site_id, address, reason, detail) VALUES (%d, %s, 'complaint', 'x')"
            % (self.site, q(to)))
        shown = self.viewer.call("GET", "/mail/%d" % row)
        self.assertReply(shown, 200)
        self.assertEqual((shown.json["mail"]["id"], shown.json["mail"]["status"]), (row, "Pending"))
        message = shown.json["message"]
        self.assertEqual((message["from"], message["from_name"], message["to"], message["cc"], message["bcc"]),
                         ("no-reply@shop.example", "Shop", [to], [], []))
        self.assertEqual(message["subject"], "Reset your password")
        self.assertEqual(message["message_id"], "<svc.%d.%d@shop.example>" % (row, self.site))
        self.assertRegex(message["date"], TIME)
        # A Pending mail's one-time link is not shown to anyone, even while it is live.
        self.assertNotIn(JWT, shown.raw.decode())
        self.assertIn("reset#[redacted]", message["html"])
        self.assertIn("Hello & welcome", message["text"])  # the text part svc-sender derives
        self.assertEqual(sql_value("SELECT body LIKE %s FROM svc_notification_log WHERE id = %d"
                                   % (q("%" + JWT + "%"), row)), "1")  # the row itself is untouched
        self.assertEqual([(b["address"], b["kind"], b["status"]) for b in shown.json["bounces"]], [(to, "soft", "4.2.2")])
        self.assertEqual(shown.json["suppressed"], [{"address": to, "reason": "complaint"}])

        theirs = insert_mail(self.other_site, event, to)
        self.assertExact(self.owner.call("GET", "/mail/%d" % theirs), 404, NOT_FOUND)
        self.assertExact(self.owner.call("POST", "/mail/%d/resend" % theirs), 404, NOT_FOUND)
        self.assertExact(self.owner.call("GET", "/mail/999999999"), 404, NOT_FOUND)
        self.assertReply(self.stranger.call("GET", "/mail/%d" % theirs), 200)

    def test_resend_a_failed_mail_goes_out_again(self):
        require_sender(self)
        to = svc_stack.unique_email("resent")
        row = insert_mail(self.site, new_event(), to, status="Failed", last_error="554 5.7.1 refused", attempts=1)
        reply = self.admin.call("POST", "/mail/%d/resend" % row)
        self.assertReply(reply, 200)
        self.assertEqual((reply.json["mail"]["status"], reply.json["mail"]["attempts"]), ("Pending", 0))
        delivered = wait_for_outbox_mail(row)
        self.assertEqual([a.addr_spec for a in delivered["To"].addresses], [to])
        self.assertEqual(audit_rows(self.site, "mail.resend")[-1],
                         (str(self.admin.id), "message %d" % row, "was Failed: 554 5.7.1 refused"))
        # The sink has it; the row says Sent once svc-sender recorded it.
        self.assertTrue(wait_until(lambda: sql_value("SELECT status FROM svc_notification_log WHERE id = %d" % row)
                                   == "Sent", 20, 0.1))
        self.assertExact(self.owner.call("POST", "/mail/%d/resend" % row), 409,
                         {"status": "Failed", "message": "Message is Sent: only a Failed message can be resent"})
        # A mail whose one-time link was redacted when it failed: sent again it would be useless.
        redacted = insert_mail(self.site, new_event(), to, status="Failed", body="<a href='x#[redacted]'>Reset</a>",
                               last_error="554")
        self.assertExact(self.owner.call("POST", "/mail/%d/resend" % redacted), 409, {
            "status": "Failed",
            "message": "Message held a one-time link or code, which is not kept: ask for a new one"})
        self.assertEqual(sql_value("SELECT status FROM svc_notification_log WHERE id = %d" % redacted), "Failed")

    def test_suppressions_listed_removed_and_added_never_another_sites(self):
        tag = uuid.uuid4().hex[:8]
        addresses = ["s%d-%s@example.com" % (i, tag) for i in range(3)]
        for i, address in enumerate(addresses):
            sql("INSERT INTO svc_mail_suppressions (site_id, address, reason, detail, created_at) VALUES"
                " (%d, %s, %s, 'DSN 5.1.1', UTC_TIMESTAMP() + INTERVAL %d SECOND)"
                % (self.site, q(address), q("bounce" if i < 2 else "unsubscribe"), 1000 + i))
        sql("INSERT INTO svc_mail_suppressions (site_id, address, reason, created_at) VALUES"
            " (%d, %s, 'bounce', UTC_TIMESTAMP() + INTERVAL 2000 SECOND)" % (self.other_site, q(addresses[0])))
        first = self.viewer.call("GET", "/suppressions", query={"limit": 2})
        self.assertReply(first, 200)
        self.assertEqual([s["address"] for s in first.json["suppressions"]], [addresses[2], addresses[1]])
        self.assertRegex(first.json["suppressions"][0]["created_at"], TIME)
        second = self.viewer.call("GET", "/suppressions", query={"limit": 1, "cursor": first.json["next_cursor"]})
        self.assertEqual([s["address"] for s in second.json["suppressions"]], [addresses[0]])
        bounced = self.viewer.call("GET", "/suppressions", query={"reason": "bounce", "limit": 2})
        self.assertEqual([(s["address"], s["reason"]) for s in bounced.json["suppressions"]],
                         [(addresses[1], "bounce"), (addresses[0], "bounce")])
        self.assertOnlyFields(self.viewer.call("GET", "/suppressions", query={"reason": "spam"}), "reason")
        theirs = self.stranger.call("GET", "/suppressions", query={"limit": 100})
        self.assertNotIn(addresses[1], [s["address"] for s in theirs.json["suppressions"]])

        removed = self.admin.call("DELETE", "/suppressions", query={"email": addresses[0].upper()})
        self.assertReply(removed, 200, {"status": "Success", "removed": 1})
        self.assertEqual(audit_rows(self.site, "mail.unsuppress")[-1],
                         (str(self.admin.id), "address " + addresses[0], "every reason, 1 removed"))
        self.assertExact(self.admin.call("DELETE", "/suppressions", query={"email": addresses[0]}), 404,
                         {"status": "Failed", "message": "Suppression not found"})
        # The other site's suppression of the same address stays.
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_mail_suppressions WHERE site_id = %d AND address = %s"
                                   % (self.other_site, q(addresses[0]))), "1")
        self.assertOnlyFields(self.admin.call("DELETE", "/suppressions"), "email")

        added = self.owner.call("POST", "/suppressions", {"email": addresses[0], "detail": "asked by phone"})
        self.assertReply(added, 200, {"status": "Success", "added": True})
        self.assertEqual(audit_rows(self.site, "mail.suppress")[-1], (str(self.owner.id), "address " + addresses[0],
                                                                      "manual"))
        self.assertOnlyFields(self.owner.call("POST", "/suppressions", {"email": "nope"}), "email")
        self.assertOnlyFields(self.owner.call("POST", "/suppressions", {"email": addresses[0], "reason": "x"}),
                              "reason")

    def test_bounce_guard(self):
        site = create_site("Guarded")
        owner = Admin(site, "owner")
        quiet = owner.call("GET", "/bounce-guard")
        self.assertReply(quiet, 200)
        guard = quiet.json["bounce_guard"]
        self.assertEqual((guard["hard_bounces_last_hour"], guard["mails_last_hour"], guard["holding"]), (0, 0, False))
        self.assertEqual(guard["enabled"], guard["max_rate_percent"] > 0)
        if not guard["enabled"]:
            self.skipTest("skipped: [smtp] max_bounce_rate is 0 in this stack")
        mails = guard["min_mails"]
        sql("INSERT INTO svc_notification_log (site_id, event, recipient, subject, body, status, created_at)"
            " SELECT %d, 'guard', CONCAT('h', seq, '@example.com'), 'x', 'x', 'Sent', UTC_TIMESTAMP()"
            " FROM seq_1_to_%d" % (site, mails))
        hard = mails * guard["max_rate_percent"] // 100 + 1
        # Held sites show in `svc-admin doctor` and /metrics, which other files of the suite read.
        self.addCleanup(sql, "DELETE FROM svc_mail_bounces WHERE site_id = %d" % site)
        sql("INSERT INTO svc_mail_bounces (site_id, address, kind, status) SELECT %d,"
            " CONCAT('h', seq, '@example.com'), 'hard', '5.1.1' FROM seq_1_to_%d" % (site, hard))
        held = owner.call("GET", "/bounce-guard").json["bounce_guard"]
        self.assertEqual((held["hard_bounces_last_hour"], held["mails_last_hour"], held["holding"]), (hard, mails, True))
        # Another site's state is its own.
        self.assertFalse(self.owner.call("GET", "/bounce-guard").json["bounce_guard"]["holding"])

    def test_cli_does_the_same_with_operator_in_the_audit(self):
        event = new_event()
        to = svc_stack.unique_email("cli")
        created = hours_ago(1)
        failed = insert_mail(self.site, event, to, status="Failed", created_at=created, last_error="554 no", attempts=2)
        theirs = insert_mail(self.other_site, event, to, status="Failed")
        listed = admin("outbox", "list", "--site", str(self.site), "--event", event).stdout
        self.assertRegex(listed, r"(?m)^%d\t%d\t%s\tFailed\t2\t%s\t" % (failed, self.site, event, created))
        self.assertNotIn("\n%d\t" % theirs, listed)
        shown = admin("outbox", "show", str(failed)).stdout
        self.assertIn("status:        Failed, 2 failed attempt(s)", shown)
        self.assertIn("created:       %sZ" % created, shown)
        self.assertIn("to:            " + to, shown)
        self.assertIn("--- text/plain ---\nHi you", shown)
        missing = admin("outbox", "show", str(theirs), "--site", str(self.site), check=False)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("no outbox row %d on site %d" % (theirs, self.site), missing.stderr)
        self.assertEqual(admin("outbox", "retry", str(theirs), "--site", str(self.site), check=False).returncode, 1)
        self.assertEqual(sql_value("SELECT status FROM svc_notification_log WHERE id = %d" % theirs), "Failed")
        admin("outbox", "retry", str(failed))
        self.assertEqual(audit_rows(self.site, "mail.resend")[-1][:2], ("operator", "message %d" % failed))

        address = svc_stack.unique_email("cli-suppressed").lower()
        admin("suppression", "add", "--site", str(self.site), "--email", address)
        self.assertEqual(audit_rows(self.site, "mail.suppress")[-1], ("operator", "address " + address, "manual"))
        self.assertRegex(admin("suppression", "list", "--site", str(self.site)).stdout,
                         r"(?m)^%d\t%s\tmanual\t\S+ \S+\t-\tadded by svc-admin$" % (self.site, re.escape(address)))
        admin("suppression", "remove", "--site", str(self.site), "--email", address)
        self.assertEqual(audit_rows(self.site, "mail.unsuppress")[-1],
                         ("operator", "address " + address, "every reason, 1 removed"))
        again = admin("suppression", "remove", "--site", str(self.site), "--email", address, check=False)
        self.assertEqual(again.returncode, 2)
        self.assertIn("Suppression not found", again.stderr)


if __name__ == "__main__":
    svc_stack.main()

"""Deliverability through the real sender, SMTP sink and svc-admin: bounces
and complaints become suppressions, one-click unsubscribe, account mail in
the reader's language, the bounce-rate guard.

Bounces are built here the way an MTA builds them (Python's email package:
RFC 3464 multipart/report; report-type=delivery-status, RFC 5965
feedback-report) and handed to `svc-admin mail ingest` on standard input,
as Postfix's pipe transport would. The VERP envelope sender they go back to
is the one the sink saw: for a refused recipient in smtp-refused.jsonl
(the sink refuses addresses listed in its control file with 550), for a
delivered mail in the .eml's X-Sink-Mail-From line.

The stack's background sender is stopped for this file (each test runs
svc-sender once and sees exactly what it did) and restarted at the end.
"""

import email.message
import hashlib
import hmac
import email.policy
import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.parse
import uuid
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import dkim

import svc_stack as S
import test_dkim as TD
import test_metrics as TM
import test_sender as TS
from procs import wait_until

REFUSED = os.path.join(S.STACK_DIR, "smtp-refused.jsonl")
VERP = re.compile(r"^bounce\+(\d+)-([0-9a-f]{20})@bounces\.localhost$")
EX_OK, EX_DATAERR, EX_TEMPFAIL = 0, 65, 75


def insert_row(recipient, site=1, priority=1, event=None, subject="Hello", from_="Shop <shop@demo.example>"):
    """One Pending row due now; its id."""
    event = event or "deliv-" + uuid.uuid4().hex[:10]
    S.sql("INSERT INTO svc_notification_log (site_id, event, recipient, `from`, subject, body, status, priority,"
          " next_attempt_at, created_at) VALUES (%d, %s, %s, %s, %s, %s, 'Pending', %d, UTC_TIMESTAMP(),"
          " UTC_TIMESTAMP())" % (site, TS.lit(event), TS.lit(recipient), TS.lit(from_), TS.lit(subject),
                                 TS.lit("<p>Hello</p>"), priority))
    return int(S.sql_value("SELECT MAX(id) FROM svc_notification_log WHERE event = %s" % TS.lit(event)))


def row(log_id):
    status, error = S.sql("SELECT status, COALESCE(last_error, '') FROM svc_notification_log WHERE id = %d"
                          % log_id)[0]
    return status, error


def suppressions(address, site=1):
    return sorted(r[0] for r in S.sql("SELECT reason FROM svc_mail_suppressions WHERE site_id = %d AND address = %s"
                                      % (site, S.q(address.lower()))))


def refusals():
    if not os.path.exists(REFUSED):
        return []
    with open(REFUSED) as f:
        return [json.loads(line) for line in f if line.strip()]


def send_once(test):
    r = TS.run_sender()
    test.assertIn(r.returncode, (0, 1), r.stderr)
    return r


def dsn(to, recipient, action, status, diagnostic):
    """An RFC 3464 delivery status notification, as an MTA sends it back to
    the envelope sender `to`."""
    msg = MIMEMultipart("report", report_type="delivery-status")
    msg["From"] = "MAILER-DAEMON@mx.example.net (Mail Delivery System)"
    msg["To"] = to
    msg["Subject"] = "Undelivered Mail Returned to Sender"
    msg["Auto-Submitted"] = "auto-replied"
    msg.attach(MIMEText("I'm sorry to have to inform you that your message could not be delivered.\n"))
    per_message = email.message.Message()
    per_message["Reporting-MTA"] = "dns; mx.example.net"
    per_message["Arrival-Date"] = "Thu, 26 Nov 2026 10:00:00 +0000"
    per_recipient = email.message.Message()
    per_recipient["Final-Recipient"] = "rfc822; " + recipient
    per_recipient["Original-Recipient"] = "rfc822; " + recipient
    per_recipient["Action"] = action
    per_recipient["Status"] = status
    per_recipient["Diagnostic-Code"] = "smtp; " + diagnostic
    status_part = MIMEBase("message", "delivery-status")
    status_part.set_payload([per_message, per_recipient])
    msg.attach(status_part)
    headers = MIMEText("Return-Path: <%s>\nTo: %s\nSubject: Hello\n" % (to, recipient), "rfc822-headers")
    msg.attach(headers)
    return msg.as_bytes()


def arf(report_to, original_return_path, original_to):
    """An RFC 5965 complaint (feedback loop): it goes to the operator's
    feedback address, and names the mail only by the quoted original."""
    msg = MIMEMultipart("report", report_type="feedback-report")
    msg["From"] = "feedback@mailbox.example"
    msg["To"] = report_to
    msg["Subject"] = "Abuse report"
    msg.attach(MIMEText("This is an email abuse report for an email message received.\n"))
    feedback = MIMEBase("message", "feedback-report")
    feedback.set_payload("Feedback-Type: abuse\nUser-Agent: SomeGenerator/1.0\nVersion: 1\n"
                         "Original-Rcpt-To: <%s>\n" % original_to)
    msg.attach(feedback)
    original = email.message.Message()
    original["Return-Path"] = "<%s>" % original_return_path
    original["From"] = "shop@demo.example"
    original["To"] = original_to
    original["Subject"] = "Our newsletter"
    original.set_payload("Hello\n")
    wrapper = MIMEBase("message", "rfc822")
    wrapper.set_payload([original])
    msg.attach(wrapper)
    return msg.as_bytes()


def ingest(message, *args, config=None):
    """svc-admin mail ingest with `message` (bytes) on standard input."""
    return subprocess.run([os.path.join(S.BIN_DIR, "svc-admin"), "--config", config or S.CONFIG, "mail", "ingest"] +
                          list(args), input=message, capture_output=True)


def config_without_database(directory):
    """The stack's configuration with [database] pointing at a socket nobody listens on."""
    with open(S.CONFIG) as f:
        text = f.read()
    head, _, rest = text.partition("[database]\n")
    rest = re.sub(r"(?m)^socket = .*$", "socket = " + os.path.join(directory, "gone.sock"), rest, count=1)
    path = os.path.join(directory, "no-db.conf")
    with open(path, "w") as f:
        f.write(head + "[database]\n" + rest)
    return path


def sink_mail(log_id):
    got = TS.mails_by_id().get(log_id, [])
    return got


def copies(log_id):
    """The sink's copies of one row: envelope recipient (lower-cased) -> (message, VERP envelope sender)."""
    out = {}
    for msg, raw in sink_mail(log_id):
        out[str(msg["X-Sink-Rcpt-To"]).lower()] = (msg, str(msg["X-Sink-Mail-From"]))
    return out


def mail_key():
    """[keys] mail_key of the stack, as bytes."""
    with open(S.CONFIG) as f:
        return S.b64url_decode(re.search(r"(?m)^mail_key = (\S+)$", f.read()).group(1))


def row_only_tag(log_id):
    """The VERP address of a mail sent before issue 36: its HMAC names the row, not a recipient."""
    mac = hmac.new(mail_key(), b"svc-verp\x1f" + str(log_id).encode(), hashlib.sha256).hexdigest()[:20]
    return "bounce+%d-%s@bounces.localhost" % (log_id, mac)


class DeliverabilityTest(S.ApiTest):

    @classmethod
    def setUpClass(cls):
        cls.had_background_sender = TS._stop("svc-sender")
        TS.run_sender()  # whatever earlier tests left due

    @classmethod
    def tearDownClass(cls):
        S.set_sink_control(TS.CONTROL, None)
        if cls.had_background_sender:
            TS.start_background_sender()

    def refused_bounce_address(self, address, code=554):
        """Sends one mail to `address`, which the sink refuses with `code`;
        the envelope sender (VERP) the refusal came for, and the row id. The
        default, 554 5.7.1 (a policy refusal), says nothing about the
        address, so svc-sender suppresses nothing and the DSN tests below
        start from a clean list; 550 5.1.1 is a dead mailbox."""
        S.set_sink_control(TS.CONTROL, {"rcpt_reject": {address: code}})
        try:
            log_id = insert_row(address)
            send_once(self)
        finally:
            S.set_sink_control(TS.CONTROL, None)
        status, error = row(log_id)
        self.assertEqual(status, "Failed")
        self.assertIn(str(code), error)
        mine = [r for r in refusals() if r["rcpt"].lower() == address.lower()]
        self.assertEqual(len(mine), 1, mine)
        m = VERP.match(mine[0]["mail_from"])
        self.assertIsNotNone(m, mine[0])
        self.assertEqual(int(m.group(1)), log_id)
        return mine[0]["mail_from"], log_id

    def test_hard_bounce_suppresses_and_the_next_mail_makes_no_smtp_attempt(self):
        address = S.unique_email("dead")
        verp, log_id = self.refused_bounce_address(address)
        bounce = dsn(verp, address, "failed", "5.1.1", "550 5.1.1 Mailbox unavailable")
        # The database down: 75, so the MTA keeps the bounce and hands it over again.
        with tempfile.TemporaryDirectory() as tmp:
            r = ingest(bounce, config=config_without_database(tmp))
        self.assertEqual(r.returncode, EX_TEMPFAIL, r.stderr)
        self.assertEqual(suppressions(address), [])
        r = ingest(bounce)
        self.assertEqual(r.returncode, EX_OK, r.stderr)
        self.assertIn(b"hard bounce 5.1.1: suppressed " + address.lower().encode(), r.stdout)
        self.assertEqual(suppressions(address), ["bounce"])
        listed = S.admin("suppression", "list", "--site", "1", "--reason", "bounce").stdout
        self.assertRegex(listed, r"(?m)^1\t%s\tbounce\t\S+ \S+\t%d\tDSN 5\.1\.1$" % (re.escape(address.lower()), log_id))

        # The next mail to it, even account mail: Failed at once, and the
        # sink (which would now accept it) never hears of it.
        before = len(refusals())
        for priority in (0, 2):
            nxt = insert_row(address, priority=priority)
            send_once(self)
            self.assertEqual(row(nxt), ("Failed", "suppressed: bounce"))
            self.assertEqual(sink_mail(nxt), [])
        self.assertEqual(len(refusals()), before)
        stats = S.admin("outbox", "stats").stdout
        self.assertRegex(stats, r"Suppressed addresses: bounce [1-9]\d*, complaint \d+, unsubscribe \d+, manual \d+")

        # The operator lets it through again.
        out = S.admin("suppression", "remove", "--site", "1", "--email", address).stdout
        self.assertIn("1 suppression(s)", out)
        again = insert_row(address)
        send_once(self)
        self.assertEqual(row(again)[0], "Sent")
        self.assertEqual(len(sink_mail(again)), 1)

    def test_dead_mailbox_refused_at_rcpt_is_suppressed_by_the_sender(self):
        # A relay that refuses a recipient during the session sends no DSN:
        # svc-sender records the refusal itself when the reply names a dead
        # address (550 5.1.1), and not for a policy refusal (554 5.7.1).
        dead = S.unique_email("rcpt-dead")
        _, log_id = self.refused_bounce_address(dead, 550)
        self.assertEqual(suppressions(dead), ["bounce"])
        listed = S.admin("suppression", "list", "--site", "1", "--reason", "bounce").stdout
        self.assertRegex(listed, r"(?m)^1\t%s\tbounce\t\S+ \S+\t%d\tRCPT 5\.1\.1$" % (re.escape(dead.lower()), log_id))
        self.assertEqual(S.sql_value("SELECT COUNT(*) FROM svc_mail_bounces WHERE log_id = %d AND kind = 'hard'"
                                     " AND status = '5.1.1'" % log_id), "1")
        before = len(refusals())
        nxt = insert_row(dead)
        send_once(self)
        self.assertEqual(row(nxt), ("Failed", "suppressed: bounce"))
        self.assertEqual(len(refusals()), before)

        policy = S.unique_email("rcpt-policy")
        _, policy_id = self.refused_bounce_address(policy, 554)
        self.assertEqual(suppressions(policy), [])
        self.assertEqual(S.sql_value("SELECT COUNT(*) FROM svc_mail_bounces WHERE log_id = %d" % policy_id), "0")

    def test_soft_bounce_suppresses_nothing(self):
        address = S.unique_email("full")
        verp, log_id = self.refused_bounce_address(address)
        r = ingest(dsn(verp, address, "delayed", "4.2.2", "452 4.2.2 Mailbox full"))
        self.assertEqual(r.returncode, EX_OK, r.stderr)
        self.assertIn(b"soft bounce 4.2.2 noted", r.stdout)
        self.assertEqual(suppressions(address), [])
        self.assertEqual(S.sql_value("SELECT COUNT(*) FROM svc_mail_bounces WHERE log_id = %d AND kind = 'soft'"
                                     % log_id), "1")

    def test_forged_or_missing_tag_is_ignored(self):
        address = S.unique_email("victim")
        verp, log_id = self.refused_bounce_address(address)
        m = VERP.match(verp)
        flipped = "0" if m.group(2)[0] != "0" else "1"
        forged = "bounce+%s-%s%s@bounces.localhost" % (m.group(1), flipped, m.group(2)[1:])
        for to, words in ((forged, b"does not verify"), ("postmaster@bounces.localhost", b"no bounce tag"),
                          ("bounce+%d-%s@bounces.localhost" % (log_id + 1, m.group(2)), b"does not verify")):
            r = ingest(dsn(to, address, "failed", "5.1.1", "550 no such user"))
            self.assertEqual(r.returncode, EX_OK, r.stderr)
            self.assertIn(b"ignored", r.stdout)
            self.assertIn(words, r.stdout)
        self.assertEqual(suppressions(address), [])
        # A DSN about an address the mail did not go to suppresses nothing either.
        other = S.unique_email("bystander")
        r = ingest(dsn(verp, other, "failed", "5.1.1", "550 no such user"))
        self.assertEqual(r.returncode, EX_OK, r.stderr)
        self.assertIn(b"not the recipient the bounce tag names", r.stdout)
        self.assertEqual(suppressions(other), [])

    def test_unreadable_and_auto_replies(self):
        self.assertEqual(ingest(b"").returncode, EX_DATAERR)
        broken = (b"From: x@example.net\r\nContent-Type: multipart/report; report-type=delivery-status\r\n\r\nhi\r\n")
        self.assertEqual(ingest(broken).returncode, EX_DATAERR)
        auto = (b"From: ada@example.org\r\nTo: bounce+1-00000000000000000000@bounces.localhost\r\n"
                b"Auto-Submitted: auto-replied\r\nSubject: Out of office\r\n\r\nBack Monday.\r\n")
        r = ingest(auto)
        self.assertEqual(r.returncode, EX_OK, r.stderr)
        self.assertIn(b"ignored: auto-reply", r.stdout)

    def test_complaint_suppresses_all_but_account_mail(self):
        address = S.unique_email("angry")
        log_id = insert_row(address)
        send_once(self)
        (msg, raw), = sink_mail(log_id)
        verp = re.search(rb"^X-Sink-Mail-From: (\S+)\r$", raw, re.M).group(1).decode()
        self.assertRegex(verp, VERP)
        r = ingest(arf("fbl@bounces.localhost", verp, address), "--recipient", "fbl@bounces.localhost")
        self.assertEqual(r.returncode, EX_OK, r.stderr)
        self.assertEqual(suppressions(address), ["complaint"])
        normal, account = insert_row(address, priority=1), insert_row(address, priority=0)
        send_once(self)
        self.assertEqual(row(normal), ("Failed", "suppressed: complaint"))
        self.assertEqual(row(account)[0], "Sent")
        self.assertEqual(len(sink_mail(account)), 1)

    def test_bulk_mail_carries_signed_one_click_unsubscribe(self):
        domain = "bulk-%s.example" % uuid.uuid4().hex[:8]
        site = TD.new_site(domain)
        selector, _, txt = TD.make_key(site, "s" + uuid.uuid4().hex[:6], "ed25519-sha256")
        address = S.unique_email("reader")
        bulk = insert_row(address, site=site, priority=2, from_="Shop <shop@%s>" % domain)
        send_once(self)
        (msg, raw), = sink_mail(bulk)
        data = TD.message_bytes(raw)
        self.assertEqual(msg["List-Unsubscribe-Post"], "List-Unsubscribe=One-Click")
        url = re.fullmatch(r"<(http://127\.0\.0\.1:%d/mail/unsubscribe\?t=[A-Za-z0-9_.-]+)>" % S.HTTP_PORT,
                           str(msg["List-Unsubscribe"]))
        self.assertIsNotNone(url, msg["List-Unsubscribe"])
        sig = re.search(rb"^DKIM-Signature:.*?(?=\r\n\S)", data, re.M | re.S).group(0)
        signed = re.sub(rb"\s", b"", re.search(rb"(?<![a-z])h=([^;]+)", sig).group(1)).lower().split(b":")
        self.assertIn(b"list-unsubscribe", signed)
        self.assertIn(b"list-unsubscribe-post", signed)
        name = "%s._domainkey.%s." % (selector, domain)
        dns = lambda q, timeout=5: txt.encode() if (q.decode() if isinstance(q, bytes) else q) == name else None
        self.assertTrue(dkim.verify(data, dnsfunc=dns))
        self.assertFalse(dkim.verify(data.replace(b"/mail/unsubscribe?t=", b"/mail/unsubscribe?x=", 1), dnsfunc=dns))
        # Normal mail of the site carries no unsubscribe link.
        normal = insert_row(address, site=site, priority=1, from_="Shop <shop@%s>" % domain)
        send_once(self)
        self.assertIsNone(sink_mail(normal)[0][0]["List-Unsubscribe"])

        path = urllib.parse.urlsplit(url.group(1))
        target = path.path + "?" + path.query
        page = S.request("GET", target)
        self.assertEqual(page.status, 200)
        self.assertTrue(page.headers["content-type"].startswith("text/html"))
        self.assertIn(address.lower().encode(), page.raw)
        self.assertIn(b'method="post"', page.raw)
        self.assertEqual(suppressions(address, site), [])  # a GET changes nothing

        done = S.request("POST", target, raw="List-Unsubscribe=One-Click",
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
        self.assertEqual(done.status, 200, done.raw)
        self.assertEqual(suppressions(address, site), ["unsubscribe"])
        self.assertEqual(suppressions(address, 1), [])  # that site only
        again = S.request("POST", target, raw="List-Unsubscribe=One-Click",
                          headers={"Content-Type": "application/x-www-form-urlencoded"})
        self.assertEqual(again.status, 200)  # idempotent

        bulk2 = insert_row(address, site=site, priority=2, from_="Shop <shop@%s>" % domain)
        normal2 = insert_row(address, site=site, priority=1, from_="Shop <shop@%s>" % domain)
        send_once(self)
        self.assertEqual(row(bulk2), ("Failed", "suppressed: unsubscribe"))
        self.assertEqual(row(normal2)[0], "Sent")

        token = urllib.parse.parse_qs(path.query)["t"][0]
        for bad in (token[:-2] + ("AA" if not token.endswith("AA") else "BB"), "", "x.y"):
            for method in ("GET", "POST"):
                r = S.request(method, "/mail/unsubscribe?t=" + bad, raw="")
                self.assertEqual(r.status, 400, (method, bad))
                self.assertIn(b"not valid", r.raw)

    def test_a_co_recipient_cannot_bounce_or_complain_about_another(self):
        # Issue 36: the tag names the row and the recipient, each recipient
        # gets an envelope (and a tag) of its own, and a report counts only
        # for the recipient its tag names.
        victim, attacker = S.unique_email("victim"), S.unique_email("co")
        log_id = insert_row("%s, %s" % (victim, attacker))
        send_once(self)
        self.assertEqual(row(log_id)[0], "Sent")
        got = copies(log_id)
        self.assertEqual(sorted(got), sorted([victim.lower(), attacker.lower()]))
        tags = {rcpt: verp for rcpt, (_, verp) in got.items()}
        for verp in tags.values():
            self.assertRegex(verp, VERP)
            self.assertEqual(int(VERP.match(verp).group(1)), log_id)
        self.assertNotEqual(tags[victim.lower()], tags[attacker.lower()])
        mine = tags[attacker.lower()]

        # The attacker's tag with a DSN naming the victim, and an ARF report
        # (whose complainer is often redacted): the victim stays mailable.
        r = ingest(dsn(mine, victim, "failed", "5.1.1", "550 5.1.1 no such user"))
        self.assertEqual(r.returncode, EX_OK, r.stderr)
        self.assertIn(b"not the recipient the bounce tag names: " + victim.lower().encode(), r.stdout)
        r = ingest(arf("fbl@bounces.localhost", mine, victim), "--recipient", "fbl@bounces.localhost")
        self.assertEqual(r.returncode, EX_OK, r.stderr)
        self.assertEqual(suppressions(victim), [])
        self.assertEqual(suppressions(attacker), ["complaint"])  # the complaint counts for the tag's recipient
        nxt = insert_row(victim)
        send_once(self)
        self.assertEqual(row(nxt)[0], "Sent")

        # The victim's own bounce, through the tag of the victim's copy, still counts.
        r = ingest(dsn(tags[victim.lower()], victim, "failed", "5.1.1", "550 5.1.1 no such user"))
        self.assertIn(b"hard bounce 5.1.1: suppressed " + victim.lower().encode(), r.stdout)
        self.assertEqual(suppressions(victim), ["bounce"])

    def test_tags_of_mails_sent_before_issue_36_count_only_for_a_single_recipient(self):
        # Decision: a row-only tag still names its recipient when the row had
        # just one; for a row of several it names nobody.
        alone = S.unique_email("alone")
        single = insert_row(alone)
        send_once(self)
        r = ingest(dsn(row_only_tag(single), alone, "failed", "5.1.1", "550 5.1.1 no such user"))
        self.assertEqual(r.returncode, EX_OK, r.stderr)
        self.assertEqual(suppressions(alone), ["bounce"])
        first, second = S.unique_email("pair"), S.unique_email("pair")
        pair = insert_row("%s, %s" % (first, second))
        send_once(self)
        for named in (first, second):
            r = ingest(dsn(row_only_tag(pair), named, "failed", "5.1.1", "550 5.1.1 no such user"))
            self.assertEqual(r.returncode, EX_OK, r.stderr)
            self.assertIn(b"ignored", r.stdout)
        self.assertEqual(suppressions(first), [])
        self.assertEqual(suppressions(second), [])

    def test_bulk_mail_to_several_gives_each_recipient_its_own_unsubscribe_link(self):
        # Issue 36: one List-Unsubscribe per recipient (one copy each), so no
        # recipient can unsubscribe another.
        first, second, copied = S.unique_email("list"), S.unique_email("list"), S.unique_email("listcc")
        S.sql("INSERT INTO svc_notification_log (site_id, event, recipient, cc, `from`, subject, body, status, priority,"
              " next_attempt_at, created_at) VALUES (1, 'bulk-several', %s, %s, 'Shop <shop@demo.example>', 'News',"
              " '<p>News</p>', 'Pending', 2, UTC_TIMESTAMP(), UTC_TIMESTAMP())" % (S.q("%s, %s" % (first, second)),
                                                                                   S.q(copied)))
        bulk = int(S.sql_value("SELECT MAX(id) FROM svc_notification_log WHERE recipient = %s"
                               % S.q("%s, %s" % (first, second))))
        send_once(self)
        got = copies(bulk)
        self.assertEqual(sorted(got), sorted(a.lower() for a in (first, second, copied)))
        links = {}
        for rcpt, (msg, _) in got.items():
            self.assertEqual([a.addr_spec for a in msg["To"].addresses], [first, second])  # the headers say who else got it
            url = re.fullmatch(r"<http://127\.0\.0\.1:%d(/mail/unsubscribe\?t=[A-Za-z0-9_.-]+)>" % S.HTTP_PORT,
                               str(msg["List-Unsubscribe"]))
            self.assertIsNotNone(url, msg["List-Unsubscribe"])
            page = S.request("GET", url.group(1))
            self.assertEqual(page.status, 200)
            self.assertIn(rcpt.encode(), page.raw)
            for other in got:
                if other != rcpt:
                    self.assertNotIn(other.encode(), page.raw)
            links[rcpt] = url.group(1)
        done = S.request("POST", links[second.lower()], raw="List-Unsubscribe=One-Click",
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
        self.assertEqual(done.status, 200, done.raw)
        self.assertEqual(suppressions(second), ["unsubscribe"])
        self.assertEqual(suppressions(first), [])
        self.assertEqual(suppressions(copied), [])

    def sign_up(self, site, locale=None):
        email_ = S.unique_email("lang")
        body = {"email": email_, "password": "Str0ng&Long-Passw0rd!", "appID": site}
        if locale:
            body["locale"] = locale
        r = S.post("/auth/sign-up", body)
        self.assertEqual(r.status, 200, r.raw)
        return email_

    def reset_mail_subject(self, site, email_):
        r = S.post("/auth/request-pass", {"email": email_, "appID": site})
        self.assertEqual(r.status, 200, r.raw)
        log_id = S.newest_outbox_id(email_)
        send_once(self)
        return str(S.wait_for_outbox_mail(log_id)["Subject"])

    def test_built_in_reset_mail_in_the_users_language(self):
        site = TD.new_site("lang-%s.example" % uuid.uuid4().hex[:8])
        german, austrian, english = self.sign_up(site, "de"), self.sign_up(site, "de-AT"), self.sign_up(site)
        self.assertEqual(S.sql_value("SELECT locale FROM svc_users WHERE user_email = %s" % S.q(austrian)), "de-at")
        self.assertEqual(self.reset_mail_subject(site, german), "Passwort zurücksetzen")
        self.assertEqual(self.reset_mail_subject(site, austrian), "Passwort zurücksetzen")
        self.assertEqual(self.reset_mail_subject(site, english), "Reset your password")

    def test_reset_mail_text_part_puts_the_link_on_a_line_of_its_own(self):
        # Issue 36: "Text (URL)" let linkifiers take the ")" into the link.
        email_ = self.sign_up(1)
        r = S.post("/auth/request-pass", {"email": email_, "appID": 1})
        self.assertEqual(r.status, 200, r.raw)
        log_id = S.newest_outbox_id(email_)
        send_once(self)
        msg = S.wait_for_outbox_mail(log_id)
        link = re.search(r'href="([^"]+)"', msg.get_body(("html",)).get_content()).group(1)
        self.assertIn("token=", link)
        lines = msg.get_body(("plain",)).get_content().splitlines()
        self.assertIn(link, lines)
        self.assertFalse(any(("(" + link) in line for line in lines), lines)

    def test_sign_up_refuses_a_locale_of_the_wrong_shape(self):
        for bad in ("deutsch!", "d", "de--at", "x" * 40, "de-ÄT"):
            r = S.post("/auth/sign-up", {"email": S.unique_email("bad"), "password": "Str0ng&Long-Passw0rd!",
                                         "locale": bad})
            self.assertValidation(r, "locale")

    def test_notification_locale_falls_back_de_at_to_de_to_default(self):
        event = "lang-" + uuid.uuid4().hex[:8]
        tmp = tempfile.mkdtemp(prefix="svc-locale-")
        self.addCleanup(shutil.rmtree, tmp)
        files = {}
        for name, text in (("en-s", "Hello [name]"), ("en-c", "<p>Hello</p>"), ("de-s", "Hallo [name]"),
                           ("de-c", "<p>Hallo</p>")):
            files[name] = os.path.join(tmp, name + ".txt")
            with open(files[name], "w") as f:
                f.write(text)
        S.admin("template", "set", "--site", "1", "--event", event, "--subject-file", files["en-s"],
                "--content-file", files["en-c"])
        out = S.admin("template", "set", "--site", "1", "--event", event, "--locale", "de", "--subject-file",
                      files["de-s"], "--content-file", files["de-c"]).stdout
        self.assertIn("(locale de)", out)
        listed = S.admin("template", "list", "--site", "1").stdout
        self.assertRegex(listed, r"(?m)^\d+\t%s\tde\tyes\tnormal\t" % event)
        self.assertRegex(listed, r"(?m)^\d+\t%s\tdefault\tyes\tnormal\t" % event)
        for locale, subject in (("de-AT", "Hallo Ada"), ("de", "Hallo Ada"), ("fr", "Hello Ada"), (None, "Hello Ada")):
            to = S.unique_email("n")
            body = {"event": event, "email": to, "data": {"name": "Ada"}}
            if locale:
                body["locale"] = locale
            r = S.post("/message/notification", body, headers=S.site_headers())
            self.assertExact(r, 200, {"status": "Success"})
            self.assertEqual(S.sql_value("SELECT subject FROM svc_notification_log WHERE recipient = %s" % S.q(to)),
                             subject, locale)
        r = S.post("/message/notification", {"event": event, "email": S.unique_email("n"), "locale": "no such"},
                   headers=S.site_headers())
        self.assertValidation(r, "locale")

    def test_bounce_rate_guard_holds_bulk_mail_only(self):
        site = TD.new_site("guard-%s.example" % uuid.uuid4().hex[:8])
        # 100 mails this hour, 6 of them hard bounces: over the default 5 %.
        S.sql("INSERT INTO svc_notification_log (site_id, event, recipient, subject, body, status, created_at)"
              " SELECT %d, 'guard-history', CONCAT('h', seq, '@example.com'), 'x', 'x', 'Sent', UTC_TIMESTAMP()"
              " FROM seq_1_to_100" % site)
        S.sql("INSERT INTO svc_mail_bounces (site_id, address, kind, status) SELECT %d,"
              " CONCAT('h', seq, '@example.com'), 'hard', '5.1.1' FROM seq_1_to_6" % site)
        code, out = self.doctor_bounces()
        self.assertIn("bulk mail held back for site %d (6 of 100)" % site, out)
        bulk = insert_row(S.unique_email("g"), site=site, priority=2)
        normal = insert_row(S.unique_email("g"), site=site, priority=1)
        send_once(self)
        self.assertEqual(row(normal)[0], "Sent")
        status, = S.sql("SELECT status FROM svc_notification_log WHERE id = %d AND next_attempt_at > NOW()" % bulk)[0]
        self.assertEqual(status, "Pending")
        self.assertRegex(S.admin("outbox", "stats").stdout, r"held by the bounce-rate guard: [1-9]\d* site")
        S.sql("DELETE FROM svc_mail_bounces WHERE site_id = %d" % site)
        S.sql("UPDATE svc_notification_log SET next_attempt_at = NOW() WHERE id = %d" % bulk)
        send_once(self)
        self.assertEqual(row(bulk)[0], "Sent")

    def test_suppression_counts_by_reason_in_metrics(self):
        address = S.unique_email("manual")
        out = S.admin("suppression", "add", "--site", "1", "--email", address, "--detail", "asked by phone").stdout
        self.assertIn("suppressed for site 1 (manual)", out)
        r = S.admin("suppression", "add", "--site", "1", "--email", "not an address", check=False)
        self.assertEqual(r.returncode, 2)
        manual = int(S.sql_value("SELECT COUNT(*) FROM svc_mail_suppressions WHERE reason = 'manual'"))

        # The database gauges are cached for up to 10 s: wait for a read that sees the new row.
        def fresh():
            reply = TM.scrape()
            parsed = TM.samples(reply.raw.decode())
            return (reply, parsed) if TM.value(parsed, "svc_mail_suppressions", reason="manual") >= manual else None

        got = wait_until(fresh, 25, step=1)
        self.assertIsNotNone(got, "svc_mail_suppressions{reason=\"manual\"} did not reach %d in /metrics" % manual)
        reply, parsed = got
        result = TM.promtool("check", "metrics", stdin=reply.raw)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        for reason in ("bounce", "complaint", "unsubscribe", "manual"):
            self.assertIn(("svc_mail_suppressions", frozenset({("reason", reason)})), parsed)
        self.assertIn(("svc_mail_bounce_guard_sites", frozenset()), parsed)
        S.admin("suppression", "remove", "--site", "1", "--email", address)

    def doctor_bounces(self):
        r = subprocess.run([os.path.join(S.BIN_DIR, "svc-admin"), "--config", S.CONFIG, "doctor"],
                           capture_output=True, text=True)
        line = next((l for l in r.stdout.splitlines() if l.split() and l.split()[0] in ("bounces",)), "")
        return r.returncode, line + "\n" + r.stdout


if __name__ == "__main__":
    S.main()

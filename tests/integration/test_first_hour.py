"""A newcomer's first hour (issue 36, items 9, 10, 12 and 13), as transcripts
through nginx and the built svc-admin against the local stack.

Covers: the demo site's reset link points at the ready page the stack
serves (/account/reset, 200), never at a path that answers 404; a site made
without --email-from gets no-reply@DOMAIN as its sender (its mail carries
that From:), and one without a domain either is refused; passkey routes
answer login's `appID does not name an application` for a token without an
appID and for an unknown or inactive site; refresh-token without `payload`
is a Validation error naming it; the 500 of user-email for an id that does
not open leaves a log line with the request id and a reason (and no part of
the id); every 429 carries a Retry-After header equal to its retry_after;
names with control characters (NUL, CR/LF, tab, DEL, C1, U+2028) are
refused at sign-up and by `svc-admin user create`.
"""

import json
import os
import re
import time
import uuid

import svc_stack
from svc_stack import ApiTest, HTTP_PORT, admin, mint_id, post, q, request, sql, sql_value, unique_email

TAG = uuid.uuid4().hex[:8]
PASSWORD = "First@Hour1"
LOG = os.path.join(svc_stack.STACK_DIR, "svc-fcgi.log")
NOT_AN_APP = {"status": "Failed", "message": "Validation error",
              "errors": [{"field": "appID", "message": "appID does not name an application"}]}
NO_RP = {"status": "Failed", "message": "Passkeys are not configured for this site: rp_id is not set"}
GENERIC_500 = {"status": "Failed", "message": "An error occurred while processing your request"}
HREF = re.compile(r'href="([^"]*)"')


def tearDownModule():
    sql("DELETE FROM svc_sites WHERE name LIKE %s" % q("first-hour-%-" + TAG))


def new_user(prefix, first="First", last="Hour"):
    """A user with a proven address (passkey enrolment needs one, issue 36 item 1)."""
    email = unique_email(prefix)
    out = admin("user", "create", "--email", email, "--first", first, "--last", last, "--verified",
                stdin=PASSWORD + "\n").stdout
    return email, int(out.strip().splitlines()[-1])


def create_site(label, *options, check=True):
    return admin("site", "create", "--user-pool", "default", "--name", "first-hour-%s-%s" % (label, TAG), *options, check=check)


def site_id(result):
    return int(result.stdout.strip().splitlines()[-1])


def reset_mail(email, app):
    """The e-mail svc-sender delivered for a fresh request-pass of `email` on site `app`."""
    before = svc_stack.newest_outbox_id(email)
    reply = post("/auth/request-pass", {"email": email, "appID": app})
    assert reply.status == 200, reply
    row = svc_stack.newest_outbox_id(email)
    assert row is not None and row != before, "no outbox row for %s" % email
    return svc_stack.wait_for_outbox_mail(row)


def log_line(request_id, event, timeout=5):
    """The svc-fcgi log line of `event` for `request_id` (it may trail the reply)."""
    deadline = time.time() + timeout
    while True:
        with open(LOG, encoding="utf-8", errors="replace") as f:
            for line in f:
                if request_id in line and '"%s"' % event in line:
                    return json.loads(line)
        if time.time() >= deadline:
            raise AssertionError("no %s line with request_id %s in %s" % (event, request_id, LOG))
        time.sleep(0.05)


class DemoSiteTest(ApiTest):
    """Item 9: the demo site's reset link opens a page the stack serves."""

    def test_the_demo_sites_reset_link_opens_the_ready_page(self):
        svc_stack.require_sender(self)
        email, _ = new_user("first-hour-demo")
        msg = reset_mail(email, 1)
        links = [h.replace("&amp;", "&") for h in HREF.findall(svc_stack.mail_html(msg))]
        self.assertEqual(len(links), 1, links)
        page = "http://127.0.0.1:%d/account/reset" % HTTP_PORT
        # The link names the site (item 15) and carries the token in the fragment.
        self.assertRegex(links[0], r"^" + re.escape(page) + r"\?site=1#token=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")
        path = links[0][len("http://127.0.0.1:%d" % HTTP_PORT):].split("#", 1)[0].split("?", 1)[0]
        page_reply = request("GET", path)
        self.assertEqual(page_reply.status, 200, page_reply)
        self.assertTrue(page_reply.headers.get("content-type", "").startswith("text/html"), page_reply.headers)
        self.assertEqual(sql_value("SELECT reset_url FROM svc_sites WHERE id = 1"), page)


class SiteSenderTest(ApiTest):
    """Item 10: every site made by svc-admin has a sender."""

    def test_a_site_without_sender_or_domain_is_refused(self):
        result = create_site("nosender", check=False)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn("--email-from", result.stderr)
        self.assertIn("--domain", result.stderr)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_sites WHERE name = %s"
                                   % q("first-hour-nosender-" + TAG)), "0")

    def test_a_site_with_only_a_domain_sends_as_no_reply_there(self):
        svc_stack.require_sender(self)
        domain = "first-hour-%s.example" % TAG
        result = create_site("domain", "--domain", domain)
        site = site_id(result)
        self.assertIn("no-reply@" + domain, result.stderr)
        self.assertRegex(admin("site", "show", "--site", str(site)).stdout,
                         r"(?m)^email_from:\s+no-reply@%s$" % re.escape(domain))
        email, _ = new_user("first-hour-from")
        msg = reset_mail(email, site)
        self.assertEqual(msg["From"], "no-reply@" + domain)

    def test_site_set_refuses_to_empty_the_sender(self):
        site = site_id(create_site("keep", "--email-from", "Keep <keep@example.org>"))
        result = admin("site", "set", "--site", str(site), "--email-from", "", check=False)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn("--email-from", result.stderr)
        self.assertEqual(sql_value("SELECT email_from FROM svc_sites WHERE id = %d" % site), "Keep <keep@example.org>")
        # A site that sends no mail needs no sender.
        quiet = site_id(create_site("quiet", "--disable-email", "true"))
        self.assertEqual(sql_value("SELECT COALESCE(email_from, '') FROM svc_sites WHERE id = %d" % quiet), "")


class PasskeySiteTest(ApiTest):
    """Item 12 (a): a missing, unknown or inactive site is named as login names it."""

    def test_passkey_routes_name_the_missing_application(self):
        email, _ = new_user("first-hour-pk")
        token = self.assertTokenReply(post("/auth/login", {"email": email, "password": PASSWORD}))["access_token"]
        headers = {"Authorization": "Bearer " + token}
        for path in ("/auth/passkey/register/options", "/auth/passkey/list"):
            with self.subTest(path):
                self.assertExact(post(path, headers=headers), 400, NOT_AN_APP)
        self.assertExact(post("/auth/passkey/delete", {"id": 1}, headers=headers), 400, NOT_AN_APP)
        self.assertExact(post("/auth/passkey/login/options", {"appID": 2000000000}), 400, NOT_AN_APP)
        inactive = site_id(create_site("pk-off", "--domain", "localhost", "--rp-id", "localhost", "--active", "false"))
        self.assertExact(post("/auth/passkey/login/options", {"appID": inactive}), 400, NOT_AN_APP)
        # An active site without an RP id still says what is missing there.
        plain = site_id(create_site("pk-plain", "--domain", "pk-plain.example"))
        self.assertExact(post("/auth/passkey/login/options", {"appID": plain}), 400, NO_RP)


class RepliesTest(ApiTest):
    """Item 12 (b), (c), (d)."""

    def test_refresh_without_payload_names_the_field(self):
        required = {"status": "Failed", "message": "Validation error",
                    "errors": [{"field": "payload", "message": "payload is required"}]}
        self.assertExact(post("/auth/refresh-token", {}), 400, required)
        self.assertExact(post("/auth/refresh-token", {"payload": None}), 400, required)
        self.assertExact(post("/auth/refresh-token", {"refresh_token": "x.y.z", "access_token": "x.y.z"}), 400,
                         required)
        not_object = {"status": "Failed", "message": "Validation error",
                      "errors": [{"field": "payload", "message": "payload must be an object"}]}
        self.assertExact(post("/auth/refresh-token", {"payload": "x.y.z"}), 400, not_object)
        # Inside the payload the spec's reply stays.
        self.assertExact(post("/auth/refresh-token", {"payload": {}}), 400,
                         {"status": "Failed", "message": "Invalid token format"})

    def test_user_email_500_logs_why_with_the_request_id(self):
        _, uid = new_user("first-hour-sealed")
        good = mint_id(uid)
        cases = {"garbage": "not-a-sealed-id-" + TAG,
                 "another purpose": mint_id(uid, kind="customer"),
                 "altered": good[:-2] + ("AA" if not good.endswith("AA") else "BB")}
        for label, token in cases.items():
            with self.subTest(label):
                reply = post("/auth/user-email", {"userId": token})
                self.assertExact(reply, 500, GENERIC_500)
                rid = reply.headers.get("x-request-id")
                self.assertRegex(rid or "", r"^[0-9a-f]{32}$")
                line = log_line(rid, "sealed_id_refused")
                self.assertEqual(line["request_id"], rid)
                self.assertEqual(line["path"], "/auth/user-email")
                self.assertIn("id_key", line["reason"])
                self.assertNotIn(token[:20], json.dumps(line))

    def test_every_429_carries_retry_after(self):
        email, _ = new_user("first-hour-429")
        try:
            reply = None
            for _ in range(12):
                reply = post("/auth/login", {"email": email, "password": "Wrong@Pass1"})
                if reply.status == 429:
                    break
            self.assertEqual(reply.status, 429, reply)
            self.assertEqual(reply.headers.get("retry-after"), str(reply.json["retry_after"]), reply.headers)
        finally:
            sql("DELETE FROM svc_login_throttle WHERE email = %s" % q(email.lower()))
        # Another builder of 429s: the SMS resend rule.
        _, uid = new_user("first-hour-sms")
        sql("UPDATE svc_users SET mobile = '+15550199' WHERE id = %d" % uid)
        token = mint_id(uid)
        self.assertEqual(post("/auth/user-sms-code", {"userId": token}).status, 200)
        again = post("/auth/user-sms-code", {"userId": token})
        self.assertEqual(again.status, 429, again)
        self.assertEqual(again.headers.get("retry-after"), str(again.json["retry_after"]), again.headers)


class NamesTest(ApiTest):
    """Item 13: control characters in names are refused."""

    BAD = {"NUL": "A\u0000B", "line feed": "x\nBcc: y", "carriage return": "x\ry", "tab": "x\ty", "DEL": "x\u007fy",
           "C1 NEL": "x\u0085y", "line separator": "x\u2028y", "paragraph separator": "x\u2029y"}

    def sign_up(self, **names):
        body = {"email": unique_email("first-hour-name"), "password": PASSWORD}
        body.update(names)
        return body["email"], post("/auth/sign-up", body)

    def test_sign_up_refuses_control_characters_in_names(self):
        for label, bad in self.BAD.items():
            for field in ("firstname", "lastname"):
                with self.subTest(label, field=field):
                    email, reply = self.sign_up(**{field: bad})
                    self.assertExact(reply, 400, {"status": "Failed", "message": "Validation error", "errors": [
                        {"field": field, "message": "%s must not contain control characters" % field}]})
                    self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE user_email = %s" % q(email)), "0")
        email, reply = self.sign_up(firstname="José Ñandú", lastname="O'Brien-Łukasz")
        self.assertEqual(self.assertTokenReply(reply)["user"]["firstName"], "José Ñandú")

    def test_svc_admin_user_create_refuses_them(self):
        for label, bad in self.BAD.items():
            if label == "NUL":
                continue  # a command-line argument cannot hold a NUL byte
            for option in ("--first", "--last"):
                with self.subTest(label, option=option):
                    email = unique_email("first-hour-admin-name")
                    result = admin("user", "create", "--email", email, option, bad, stdin=PASSWORD + "\n",
                                   check=False)
                    self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
                    self.assertIn("%s must not contain control characters" % option, result.stderr)
                    self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE user_email = %s" % q(email)), "0")


if __name__ == "__main__":
    svc_stack.main()

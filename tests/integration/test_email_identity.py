"""E-mail as identity (issue 26) through nginx + workers + MariaDB +
svc-sender + the SMTP sink: sign-in codes by e-mail, verified addresses,
and links that mail scanners cannot spend.

Covers: POST /auth/email-code answers a registered and an unregistered
address with the same status, headers and body (the address aside) and
queues a mail only for the registered one; the code read from the delivered
mail's text part signs in once (a wrong code and the spent one get the one
refusal), with amr ["otp"] and email_verified true in the access token; a
user with a second factor gets 401 Second factor required after the code
and, after TOTP, amr ["otp","mfa"]. On a site with `site set
--verify-email`: sign-up mails a verification link (token after '#', none
in a query), the right password gets 403 Email not verified (a wrong one
still 401), GET and HEAD of the link spend nothing, the POST does, and then
login succeeds with email_verified true; resend answers an unknown address
like a known one and mails only the unverified user, 20 resends deliver one
mail (the e-mail codes' interval), and a site that does not verify addresses
gets none. Links to /account/…
in the reset, verification and code mails carry no '?…token'; a site's
reset_url with a {token} placeholder gets the token there, and one without
keeps the query (PHP pages); a password reset proves the address.

The per-user caps on the fixed clock are in tests/handlers/auth/email_code_test.cpp.
"""

import html
import json
import os
import re
import tempfile
import time
import urllib.parse

import svc_stack
from svc_stack import ApiTest, admin, b64url_decode, post, request, sql_value, unique_email
import runner
from test_mfa import settle, step_now, totp

PASSWORD = "Engine@1843"
HREF = re.compile(r'href="([^"]+)"')
REFUSED = {"status": "Failed", "message": "Invalid or expired code"}
NOT_VERIFIED = {"status": "Failed", "message": "Email not verified"}
INVALID_CREDENTIALS = {"status": "Failed", "message": "Invalid credentials"}
VERIFIED = {"status": "Success", "message": "Email verified"}
TOKEN_INVALID = {"status": "Failed", "message": "Verification token has expired or is invalid"}
PAGE_ROOT = "http://127.0.0.1:%d/account/" % svc_stack.HTTP_PORT
# A token in a query string: "?token=", "&token=", "?t=" and the like.
QUERY_TOKEN = re.compile(r"[?&][^=#]*=[A-Za-z0-9_-]{20,}")


def claims(jwt):
    return json.loads(b64url_decode(jwt.split(".")[1]))


def create_site(name, *options):
    out = admin("site", "create", "--user-pool", "default", "--name", name, "--domain", "identity.example",
                "--email-from", "Identity <no-reply@identity.example>", *options).stdout
    return int(out.strip().splitlines()[-1])


def create_user(prefix, *options):
    """A user made by svc-admin (options such as "--verified" passed on)."""
    email = unique_email(prefix)
    uid = int(admin("user", "create", "--email", email, "--first", "Ada", "--last", "Mail", *options,
                    stdin=PASSWORD + "\n").stdout.strip().splitlines()[-1])
    return email, uid


def delivered(email):
    """The mail svc-sender delivered for the newest outbox row to `email`."""
    row = svc_stack.newest_outbox_id(email)
    assert row is not None, "no outbox row for %s" % email
    return svc_stack.wait_for_outbox_mail(row)


def links(msg):
    return [html.unescape(h) for h in HREF.findall(svc_stack.mail_html(msg))]


def text_part(msg):
    return msg.get_body(preferencelist=("plain",)).get_content()


def code_of(msg):
    found = re.findall(r"\b(\d{6})\b", text_part(msg))
    assert len(set(found)) == 1, found
    return found[0]


def sent_row(test, email):
    """(subject, body) of the newest outbox row to `email` once svc-sender
    has marked it Sent (right after the SMTP transaction)."""
    row_id = svc_stack.newest_outbox_id(email)
    deadline = time.time() + 20
    while sql_value("SELECT status FROM svc_notification_log WHERE id = %d" % row_id) != "Sent":
        test.assertLess(time.time(), deadline, "outbox row %d was never marked Sent" % row_id)
        time.sleep(0.2)
    return tuple(svc_stack.sql("SELECT subject, body FROM svc_notification_log WHERE id = %d" % row_id)[0])


def outbox_rows(email, event):
    return int(sql_value("SELECT COUNT(*) FROM svc_notification_log WHERE recipient = %s AND event = %s"
                         % (svc_stack.q(email), svc_stack.q(event))))


def verified_at(uid):
    return sql_value("SELECT email_verified_at FROM svc_users WHERE id = %d" % uid)


class EmailCodeTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    def ask(self, email, app_id=1):
        return post("/auth/email-code", {"email": email, "appID": app_id})

    def verify(self, email, code, app_id=1):
        return post("/auth/email-code/verify", {"email": email, "appID": app_id, "code": code})

    def test_known_and_unknown_addresses_get_the_same_reply(self):
        known, _ = create_user("ecode-known")
        unknown = unique_email("ecode-unknown")
        replies = {address: self.ask(address) for address in (known, unknown)}
        for address, reply in replies.items():
            self.assertExact(reply, 200, {"status": "Success", "message": "A sign-in code has been sent to " + address})
        shape = [(r.status, r.raw.replace(a.encode(), b"ADDRESS"), sorted(k for k in r.headers if k != "x-request-id"))
                 for a, r in replies.items()]
        self.assertEqual(shape[0], shape[1])
        self.assertEqual(outbox_rows(known, "email-code"), 1)
        self.assertEqual(outbox_rows(unknown, "email-code"), 0)
        self.assertExact(self.verify(unknown, "123456"), 401, REFUSED)

    def test_the_mailed_code_signs_in_once(self):
        email, uid = create_user("ecode-once")
        self.assertReply(self.ask(email), 200)
        msg = delivered(email)
        self.assertEqual(msg["Subject"], "Your sign-in code")
        code = code_of(msg)
        self.assertIn(code, svc_stack.mail_html(msg))
        self.assertEqual(links(msg), [])  # nothing to follow, so nothing a scanner can spend
        self.assertIsNone(verified_at(uid))

        # Once Sent, the outbox row keeps no usable code (outbox_repo.cpp kRedactBody).
        subject, body = sent_row(self, email)
        self.assertNotIn(code, subject + body)
        self.assertIn("<strong>[redacted]</strong>", body)

        wrong = "%06d" % ((int(code) + 1) % 1000000)
        self.assertExact(self.verify(email, wrong), 401, REFUSED)
        token = self.assertTokenReply(self.verify(email, code))
        access = claims(token["access_token"])
        self.assertEqual(access["amr"], ["otp"])
        self.assertIs(access["email_verified"], True)
        self.assertEqual(access["sub"], str(uid))
        self.assertIsNotNone(verified_at(uid))
        self.assertExact(self.verify(email, code), 401, REFUSED)  # spent
        # A refresh keeps the sign-in method.
        refreshed = post("/auth/refresh-token", {"payload": {"access_token": token["access_token"],
                                                             "refresh_token": token["refresh_token"]}})
        self.assertReply(refreshed, 200)
        self.assertEqual(claims(refreshed.json["token"]["access_token"])["amr"], ["otp"])

    def test_malformed_requests_are_validation_errors(self):
        self.assertValidation(post("/auth/email-code", {}), "email", "appID")
        self.assertValidation(post("/auth/email-code", {"email": "not-an-address", "appID": 1}), "email")
        self.assertValidation(self.verify("a@example.com", "12345"), "code")
        self.assertValidation(self.verify("a@example.com", "12a456"), "code")
        self.assertValidation(post("/auth/email-code", {"email": "a@example.com", "appID": 999999}), "appID")

    def test_a_user_with_a_second_factor_goes_through_the_mfa_step(self):
        settle()
        email, _ = create_user("ecode-mfa", "--verified")  # enrolment needs a proven address
        token = self.assertTokenReply(post("/auth/login", {"email": email, "password": PASSWORD}))
        bearer = {"Authorization": "Bearer " + token["access_token"]}
        secret = post("/auth/mfa/totp/setup", headers=bearer).json["secret"]
        step = step_now()
        self.assertReply(post("/auth/mfa/totp/confirm", {"code": totp(secret, step - 1)}, headers=bearer), 200)

        self.assertReply(self.ask(email), 200)
        reply = self.verify(email, code_of(delivered(email)))
        self.assertEqual(reply.status, 401, reply)
        self.assertEqual(reply.json["message"], "Second factor required")
        self.assertEqual(reply.json["methods"], ["totp", "recovery_code"])
        done = post("/auth/mfa/verify", {"mfa_token": reply.json["mfa_token"], "code": totp(secret, step)})
        session = self.assertTokenReply(done)
        self.assertEqual(claims(session["access_token"])["amr"], ["otp", "mfa"])


class BuiltInTemplateTest(ApiTest):
    def test_builtin_templates_are_listed_with_their_text_part_and_a_site_overrides_one(self):
        site = create_site("Own code template")
        listing = admin("template", "list", "--builtin", "--site", str(site)).stdout
        for event in ("password-reset", "mfa-enabled", "mfa-disabled", "mfa-recovery-codes", "email-code",
                      "verify-email"):
            self.assertRegex(listing, r"(?m)^%s\n  subject: " % re.escape(event))
        self.assertIn("  fields:  email firstName lastName code minutes\n", listing)
        self.assertIn("\n  text:\n    Your sign-in code for [email] is:\n", listing)
        self.assertIn("\n  language: de\n", listing)  # every built-in one in German too
        self.assertNotIn("its own enabled template", listing)

        with tempfile.TemporaryDirectory() as tmp:
            subject, content = os.path.join(tmp, "subject.txt"), os.path.join(tmp, "content.html")
            with open(subject, "w") as f:
                f.write("Code [code] for [firstName]\n")
            with open(content, "w") as f:
                f.write("<p>Here it is: [code] ([minutes] min)</p>")
            admin("template", "set", "--site", str(site), "--event", "email-code", "--subject-file", subject,
                  "--content-file", content)
        listing = admin("template", "list", "--builtin", "--site", str(site)).stdout
        self.assertIn("email-code\n  subject: Your sign-in code\n  fields:  email firstName lastName code minutes\n"
                      "  site %d: its own enabled template\n" % site, listing)

        email, _ = create_user("owntemplate")
        self.assertReply(post("/auth/email-code", {"email": email, "appID": site}), 200)
        msg = delivered(email)
        self.assertRegex(msg["Subject"], r"^Code \d{6} for Ada$")
        self.assertRegex(text_part(msg), r"Here it is: \d{6} \(10 min\)")
        self.assertEqual(sent_row(self, email), ("Code [redacted] for Ada", "<p>Here it is: [redacted] (10 min)</p>"))


class VerifiedAddressTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    @classmethod
    def setUpClass(cls):
        cls.site = create_site("Verified addresses", "--verify-email")

    def login(self, email, password=PASSWORD):
        return post("/auth/login", {"email": email, "password": password, "appID": self.site})

    def sign_up(self, prefix):
        email = unique_email(prefix)
        token = self.assertTokenReply(post("/auth/sign-up", {"email": email, "password": PASSWORD,
                                                             "appID": self.site}))
        self.assertIs(claims(token["access_token"])["email_verified"], False)
        uid = int(claims(token["access_token"])["sub"])
        return email, uid

    def verification_link(self, email):
        found = links(delivered(email))
        self.assertEqual(len(found), 1, found)
        return found[0]

    def test_site_show_says_it(self):
        self.assertIn("verify_email:    true", admin("site", "show", "--site", str(self.site)).stdout)

    def test_unverified_refused_after_the_password_then_verified_by_the_link(self):
        email, uid = self.sign_up("verify-flow")
        self.assertExact(self.login(email), 403, NOT_VERIFIED)
        self.assertExact(self.login(email, "Wrong@1843x"), 401, INVALID_CREDENTIALS)

        link = self.verification_link(email)
        # The only query is the site, whose name the page shows (issue 36).
        self.assertRegex(link, r"^" + re.escape(PAGE_ROOT + "verify?site=%d" % self.site) + r"#token=[A-Za-z0-9_.-]+$")
        self.assertNotIn("token", urllib.parse.urlsplit(link).query)
        token = link.split("#token=", 1)[1]
        # What a mail scanner does: GET and HEAD of the link (the fragment is
        # never sent), which change nothing.
        page = urllib.parse.urlsplit(link)
        for method in ("GET", "HEAD"):
            self.assertEqual(request(method, "%s?%s" % (page.path, page.query)).status, 200)
        self.assertIsNone(verified_at(uid))
        self.assertExact(self.login(email), 403, NOT_VERIFIED)

        self.assertExact(post("/auth/verify-email", {"token": token + "x"}), 400, TOKEN_INVALID)
        self.assertExact(post("/auth/verify-email", {"token": token}), 200, VERIFIED)
        self.assertIsNotNone(verified_at(uid))
        self.assertExact(post("/auth/verify-email", {"token": token}), 200, VERIFIED)  # a second click
        session = self.assertTokenReply(self.login(email))
        self.assertIs(claims(session["access_token"])["email_verified"], True)

    def test_a_login_without_the_site_is_not_held_back(self):
        email, _ = self.sign_up("verify-nosite")
        self.assertTokenReply(post("/auth/login", {"email": email, "password": PASSWORD}))

    def test_resend_answers_unknown_like_known_and_mails_only_the_unverified(self):
        email, uid = self.sign_up("verify-resend")
        first = self.verification_link(email)
        unknown = unique_email("verify-unknown")
        for address in (email, unknown):
            self.assertExact(post("/auth/verify-email/resend", {"email": address, "appID": self.site}), 200,
                             {"status": "Success", "message": "A verification e-mail has been sent to " + address})
        self.assertEqual(outbox_rows(email, "verify-email"), 2)
        self.assertEqual(outbox_rows(unknown, "verify-email"), 0)
        second = self.verification_link(email)
        self.assertNotEqual(first, second)
        self.assertExact(post("/auth/verify-email", {"token": second.split("#token=", 1)[1]}), 200, VERIFIED)
        self.assertIsNotNone(verified_at(uid))
        # Verified now: a resend mails nothing.
        self.assertReply(post("/auth/verify-email/resend", {"email": email, "appID": self.site}), 200)
        self.assertEqual(outbox_rows(email, "verify-email"), 2)

    def test_twenty_resends_deliver_one_mail(self):
        email, _ = self.sign_up("verify-flood")
        for _ in range(20):
            self.assertExact(post("/auth/verify-email/resend", {"email": email, "appID": self.site}), 200,
                             {"status": "Success", "message": "A verification e-mail has been sent to " + email})
        # The sign-up's mail and one resend: the others came within [auth]
        # email_code_resend_seconds (60) of it.
        self.assertEqual(svc_stack.delivered_count(email), 2)

    def test_a_site_that_does_not_verify_addresses_sends_no_verification_mail(self):
        site = create_site("Unverified addresses")
        email = unique_email("verify-off")
        self.assertTokenReply(post("/auth/sign-up", {"email": email, "password": PASSWORD, "appID": site}))
        self.assertExact(post("/auth/verify-email/resend", {"email": email, "appID": site}), 200,
                         {"status": "Success", "message": "A verification e-mail has been sent to " + email})
        self.assertEqual(svc_stack.delivered_count(email), 0)

    def test_an_email_code_proves_the_address_on_such_a_site(self):
        email, uid = self.sign_up("verify-bycode")
        self.assertReply(post("/auth/email-code", {"email": email, "appID": self.site}), 200)
        code = code_of(delivered(email))
        self.assertTokenReply(post("/auth/email-code/verify", {"email": email, "appID": self.site, "code": code}))
        self.assertIsNotNone(verified_at(uid))
        self.assertTokenReply(self.login(email))


class MailedLinksTest(ApiTest):
    """Links svc mails to its own /account/ pages carry the token after '#'
    only; a site's own reset page gets it where its reset_url says."""

    def reset_link(self, site, email):
        self.assertReply(post("/auth/request-pass", {"email": email, "appID": site}), 200)
        found = links(delivered(email))
        self.assertEqual(len(found), 1, found)
        return found[0]

    def test_reset_and_verification_links_to_account_pages_have_no_query_token(self):
        site = create_site("Links", "--verify-email")
        email = unique_email("links")
        self.assertReply(post("/auth/sign-up", {"email": email, "password": PASSWORD, "appID": site}), 200)
        verification = links(delivered(email))
        reset = self.reset_link(site, email)
        for link in verification + [reset]:
            self.assertTrue(link.startswith(PAGE_ROOT), link)
            self.assertIsNone(QUERY_TOKEN.search(link), link)
            self.assertRegex(link, r"#token=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")

    def test_a_token_placeholder_in_reset_url_says_where_the_token_goes(self):
        site = create_site("Placeholder", "--reset-url", "https://app.identity.example/reset#t={token}")
        email, _ = create_user("placeholder")
        link = self.reset_link(site, email)
        self.assertRegex(link, r"^https://app\.identity\.example/reset#t=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")
        plain = create_site("Query", "--reset-url", "https://app.identity.example/reset.php")
        self.assertRegex(self.reset_link(plain, email), r"^https://app\.identity\.example/reset\.php\?token=")

    def test_a_password_reset_proves_the_address(self):
        site = create_site("Reset proves", "--verify-email")
        email = unique_email("resetproves")
        signed = self.assertTokenReply(post("/auth/sign-up", {"email": email, "password": PASSWORD, "appID": site}))
        uid = int(claims(signed["access_token"])["sub"])
        token = self.reset_link(site, email).split("#token=", 1)[1]
        self.assertIsNone(verified_at(uid))
        fresh = "Fresh@Pass2026"
        self.assertReply(post("/auth/reset-pass", {"password": fresh, "confirmPassword": fresh,
                                                   "reset_password_token": token}), 200)
        self.assertIsNotNone(verified_at(uid))
        self.assertTokenReply(post("/auth/login", {"email": email, "password": fresh, "appID": site}))


if __name__ == "__main__":
    runner.main()

"""POST /auth/request-pass and POST /auth/reset-pass through nginx + workers +
MariaDB + svc-sender + the SMTP sink.

Covers: request-pass validation (one entry per missing field, e-mail format,
unknown / malformed appID); a byte-identical reply for a registered and an
unregistered address, with a `password-reset` outbox row only for the
registered one; the link base (site reset_url, a request url that is https
(or http to loopback) and lies within one of the site's reset URLs at a path
segment boundary, 400 on any other url, never the Host / X-Forwarded-Host
headers); the full round trip
with the link read out of the real e-mail svc-sender delivered (token works
once, new password logs in, old one fails, earlier refresh tokens die, audit
rows, Argon2id hash); reset-pass errors (weak, mismatch, tampered, typ access,
garbage, wrong table, hand-made expired token = 400 while the same hand-made
token with a future exp = 200, which pins the token format: HS256 JWT with
typ "reset", aud "svc-reset", sub, tbl, pwf = base64url(HMAC-SHA256(reset_key,
password hash)[:16]), signed with HMAC-SHA256(jwt_secret, "svc-reset-token-key"),
never with the access tokens' key);
hostile input on both endpoints.

Every user is fresh (unique e-mail), so the file is re-runnable on one stack
and independent of the other test files; site 1 is only read (its reset_url),
and the extra sites a test needs are created per run.
"""

import hashlib
import hmac
import html
import json
import re
import secrets
import time
import urllib.parse

import svc_stack
from svc_stack import ApiTest, post, q, request, sql, sql_value, unique_email
from svc_stack import b64url, b64url_decode, config_value, run_concurrently

PASSWORD = "Pass@1234"
NEW_PASSWORD = "Fresh@Pass99"
RESET_OK = {"status": "Success", "message": "Password reset successfully"}
RESET_INVALID = {"status": "Failed", "message": "Reset password token has expired or is invalid"}
INVALID_CREDENTIALS = {"status": "Failed", "message": "Invalid credentials"}
LEAK_WORDS = ("sql syntax", "sqlstate", "mariadb", "mysql", "exception", "what()", "stack trace", "errno")
HREF = re.compile(r'href="([^"]*)"')


KID = config_value("keys", "jwt_kid")
JWT_SECRET = b64url_decode(config_value("keys", "jwt_secret"))
RESET_KEY = b64url_decode(config_value("keys", "reset_key"))
# Reset tokens are signed with a key derived from the jwt secret, not with it.
RESET_SIGNING_KEY = hmac.new(JWT_SECRET, b"svc-reset-token-key", hashlib.sha256).digest()


def mint_jwt(payload, secret=RESET_SIGNING_KEY, header=None):
    """An HS256 JWT made here with hmac + hashlib, independent of the service."""
    header = header if header is not None else {"alg": "HS256", "typ": "JWT", "kid": KID}
    signing_input = b64url(json.dumps(header, separators=(",", ":"))) + "." + \
        b64url(json.dumps(payload, separators=(",", ":")))
    return signing_input + "." + b64url(hmac.new(secret, signing_input.encode(), hashlib.sha256).digest())


def fingerprint(stored_hash, email):
    """pwf: base64url of the first 16 bytes of HMAC-SHA256(reset_key, password
    column + LF + the lower-cased address the token is mailed to)."""
    bound = (stored_hash + "\n" + email.lower()).encode()
    return b64url(hmac.new(RESET_KEY, bound, hashlib.sha256).digest()[:16])


def reset_claims(user_id, exp, pwf, table="svc_users"):
    return {"sub": str(user_id), "typ": "reset", "aud": "svc-reset", "tbl": table, "iat": int(time.time()) - 60, "exp": exp,
            "jti": secrets.token_urlsafe(16), "pwf": pwf}


def create_user(prefix="reset", email=None, password=PASSWORD, table="svc_users"):
    email = email or unique_email(prefix)
    out = svc_stack.admin("user", "create", "--email", email, "--first", "Re", "--last", "Set",
                          "--mobile", "+15550123", "--table", table, stdin=password + "\n").stdout
    return int(out.strip().splitlines()[-1]), email


def versions(table, user_id):
    """svc_versions rows of one user: (action, snapshot as a dict), oldest first."""
    return [(action, json.loads(snapshot)) for action, snapshot in
            sql("SELECT action, snapshot FROM svc_versions WHERE table_name = %s AND record_id = %d ORDER BY id"
                % (q(table), user_id))]


def outbox_rows(email):
    return sql("SELECT id, event, recipient, site_id, subject, body FROM svc_notification_log WHERE recipient = %s"
               " ORDER BY id" % q(email))


def links_in(body_html):
    return [html.unescape(h) for h in HREF.findall(body_html)]


def token_of(link):
    """The token of a reset link: in its query, or in the fragment of a ready-page link."""
    parts = urllib.parse.urlsplit(link)
    values = urllib.parse.parse_qs(parts.query).get("token") or urllib.parse.parse_qs(parts.fragment).get("token")
    assert values and len(values) == 1, "no single token in %r" % link
    return values[0]


def request_pass(email, app=1, **extra):
    body = {"email": email, "appID": app}
    body.update(extra)
    return post("/auth/request-pass", body)


def fresh_token(email, app=1, **extra):
    """Asks for a reset and returns (token, link) of the e-mail svc-sender
    delivered for the new outbox row. Never from the row itself: the sender
    redacts the token there once the mail is sent (sql/004), a race."""
    before = svc_stack.newest_outbox_id(email)
    reply = request_pass(email, app, **extra)
    assert reply.status == 200, reply
    row_id = svc_stack.newest_outbox_id(email)
    assert row_id is not None and row_id != before, "no new outbox row for %s" % email
    link = delivered_link(row_id)
    return token_of(link), link


def reset(token, password=NEW_PASSWORD, confirm=None, **extra):
    body = {"password": password, "confirmPassword": password if confirm is None else confirm,
            "reset_password_token": token}
    body.update(extra)
    return post("/auth/reset-pass", body)


def login(email, password, **extra):
    body = {"email": email, "password": password, "appID": 1}
    body.update(extra)
    return post("/auth/login", body)


def delivered_link(row_id):
    """The one link of the e-mail the SMTP sink received for outbox row `row_id`."""
    links = links_in(svc_stack.mail_html(svc_stack.wait_for_outbox_mail(row_id)))
    assert len(links) == 1, links
    return links[0]


SITE1_RESET_URL = sql_value("SELECT reset_url FROM svc_sites WHERE id = 1")
# Site 1's reset URL is the stack's ready page (issue 36 item 9): its links
# name the site (item 15) and carry the token in the fragment.
SITE1_LINK = SITE1_RESET_URL + "?site=1#token="


def site_with_reset_urls(urls):
    """A new site whose --reset-url is `urls` (comma-separated; the first is the default page)."""
    out = svc_stack.admin("site", "create", "--user-pool", "default", "--name", "reset-urls-%s" % secrets.token_hex(4), "--domain",
                          "reset.example", "--reset-url", urls,
                          "--email-from", "Reset <no-reply@reset.example>").stdout
    return int(out.strip().splitlines()[-1])


class ResetTest(ApiTest):
    LEAK_WORDS = LEAK_WORDS

    def setUp(self):
        svc_stack.require_sender(self)  # tokens come from the delivered e-mails

    def assertSafe(self, reply, allowed=(200, 400)):
        """A status from the spec, JSON, no 5xx, nothing of the database in the body."""
        self.assertIn(reply.status, allowed, reply)
        self.assertIsInstance(reply.json, dict, reply)
        self.assertIn(reply.json.get("status"), ("Success", "Failed"), reply)
        self.assertJsonType(reply)
        self.assertNoLeak(reply)
        return reply

    # --- request-pass: validation --------------------------------------------------------

    def test_request_pass_one_entry_per_missing_field(self):
        self.assertOnlyFields(post("/auth/request-pass", {}), "email", "appID")
        self.assertOnlyFields(post("/auth/request-pass", {"appID": 1}), "email")
        self.assertOnlyFields(post("/auth/request-pass", {"email": unique_email("rpv")}), "appID")
        self.assertOnlyFields(post("/auth/request-pass", {"email": "", "appID": None}), "email", "appID")

    def test_request_pass_bad_email_format(self):
        for bad in ("not-an-email", "a@b@example.com", "a b@example.com", "@example.com", "user@",
                    "user@example..com", "user.@example.com", "<script>@example.com"):
            with self.subTest(email=bad):
                self.assertOnlyFields(request_pass(bad), "email")

    def test_request_pass_unknown_or_malformed_app_id(self):
        _, email = create_user("rpapp")
        for app in (987654321, 0, -1, "abc", "1 OR 1=1", 1.5, True, {"id": 1}, [1], "", "99999999999999999999"):
            with self.subTest(appID=app):
                self.assertOnlyFields(request_pass(email, app), "appID")
        inactive = int(svc_stack.admin("site", "create", "--user-pool", "default", "--name", "reset-off-%s" % secrets.token_hex(4),
                                       "--reset-url", "https://off.example/r", "--domain", "off.example", "--active", "false"
                                       ).stdout.strip().splitlines()[-1])
        self.assertOnlyFields(request_pass(email, inactive), "appID")
        self.assertEqual(outbox_rows(email), [])
        # appID as a decimal string is a number (design: Gaps, numbers).
        self.assertReply(request_pass(email, "1"), 200)
        self.assertEqual(len(outbox_rows(email)), 1)

    # --- request-pass: no user enumeration ---------------------------------------------------

    def test_reply_is_byte_identical_for_registered_and_unknown_address(self):
        tag = secrets.token_hex(6)
        known, unknown = "rp-k-%s@example.com" % tag, "rp-u-%s@example.com" % tag
        uid, _ = create_user(email=known)
        a, b = request_pass(known), request_pass(unknown)
        self.assertReply(a, 200, {"status": "Success",
                                  "message": "An e-mail with reset instructions has been sent to " + known})
        self.assertEqual(a.status, b.status)
        self.assertEqual(a.raw.replace(known.encode(), b"<EMAIL>"), b.raw.replace(unknown.encode(), b"<EMAIL>"))
        for h in ("content-type", "content-length", "cache-control", "set-cookie"):
            self.assertEqual(a.headers.get(h), b.headers.get(h), h)
        # Only the registered address gets a password-reset outbox row.
        rows = outbox_rows(known)
        self.assertEqual(len(rows), 1, rows)
        _, event, recipient, site_id, _, body = rows[0]
        self.assertEqual((event, recipient, site_id), ("password-reset", known, "1"))
        links = links_in(body)
        self.assertEqual(len(links), 1, body)
        self.assertTrue(links[0].startswith(SITE1_LINK), links[0])
        self.assertEqual(outbox_rows(unknown), [])
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_notification_log WHERE body LIKE %s"
                                   % q("%" + unknown + "%")), "0")
        self.assertGreaterEqual(int(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE event = 'reset_requested'"
                                              " AND user_id = %d" % uid)), 1)

    def test_inactive_user_gets_the_same_reply_and_no_mail(self):
        tag = secrets.token_hex(6)
        inactive, unknown = "rp-i-%s@example.com" % tag, "rp-n-%s@example.com" % tag
        uid, _ = create_user(email=inactive)
        sql("UPDATE svc_users SET active = 0 WHERE id = %d" % uid)
        a, b = request_pass(inactive), request_pass(unknown)
        self.assertEqual(a.status, 200)
        self.assertEqual(a.raw.replace(inactive.encode(), b"<EMAIL>"), b.raw.replace(unknown.encode(), b"<EMAIL>"))
        self.assertEqual(outbox_rows(inactive), [])

    # --- request-pass: the link base --------------------------------------------------------

    def test_allowed_request_url_is_the_link_base(self):
        site = site_with_reset_urls("http://localhost/custom, https://127.0.0.1:8443/app/reset,"
                                    "http://localhost/upper,http://localhost/r")
        _, email = create_user("rpurl")
        for url in ("http://localhost/custom", "https://127.0.0.1:8443/app/reset", "HTTP://LOCALHOST/upper",
                    "https://127.0.0.1:8443/app/reset/deeper/page", "http://localhost/custom/"):
            with self.subTest(url=url):
                before = len(outbox_rows(email))
                self.assertReply(request_pass(email, site, url=url), 200)
                rows = outbox_rows(email)
                self.assertEqual(len(rows), before + 1)
                link = links_in(rows[-1][5])[0]
                self.assertTrue(link.startswith(url + "?token="), link)
        # A url that has a query keeps it; the token is one more parameter.
        self.assertReply(request_pass(email, site, url="http://localhost/r?lang=en"), 200)
        link = links_in(outbox_rows(email)[-1][5])[0]
        self.assertTrue(link.startswith("http://localhost/r?lang=en&token="), link)
        self.assertEqual(urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["lang"], ["en"])
        token_of(link)

    def test_url_must_lie_within_a_reset_url_of_the_site(self):
        """Issue 22: sharing a host with a reset page is not enough. The url
        must be https (http only to loopback, the rule of svc-admin's
        --reset-url) and continue one of the site's reset URLs at a path
        segment boundary, with the same scheme, host and port."""
        site = site_with_reset_urls("https://shop.example/reset,https://shop.example:8443/account/,"
                                    "http://127.0.0.1:9/reset")
        _, email = create_user("rpprefix")
        for url in ("https://shop.example/reset", "https://shop.example/reset/", "https://shop.example/reset/step2",
                    "https://SHOP.example/reset?lang=en", "https://shop.example:443/reset",
                    "https://shop.example:8443/account/reset", "http://127.0.0.1:9/reset/x"):
            with self.subTest(url=url):
                self.assertReply(request_pass(email, site, url=url), 200)
        refused = [
            ("http://shop.example/reset", "url must use https"),                      # the token in clear
            ("http://shop.example/reset/x", "url must use https"),
            ("https://shop.example/reset-evil", None),                                  # not a segment boundary
            ("https://shop.example/resetx/", None),
            ("https://shop.example/", None), ("https://shop.example/other", None),       # another path
            ("https://shop.example.evil.example/reset", None),                          # another host
            ("https://evil.example/reset", None), ("https://shop.example./reset", None),
            ("https://shop.example:444/reset", None),                                   # another port
            ("https://shop.example:8443/account", None),  # prefix "/account/" holds only what is below it
            ("https://shop.example/reset/../admin", None),                              # dot segments
            ("https://shop.example/reset/%2e%2e/admin", None), ("https://shop.example/reset/..;/admin", None),
            ("https://shop.example/reset%2f..%2fadmin", None), ("https://shop.example/reset\\..\\admin", None),
            ("https://user@shop.example/reset", None),                                  # userinfo
            ("https://shop.example@evil.example/reset", None),
            ("http://127.0.0.1:9/resetx", None), ("http://localhost:9/reset", None),
        ]
        for url, message in refused:
            with self.subTest(url=url):
                reply = request_pass(email, site, url=url)
                self.assertOnlyFields(reply, "url")
                self.assertEqual(reply.json["errors"][0]["message"],
                                 message or "url must start with a reset URL this application allows", reply)
        # Site 1's reset URL is its own: another site's prefixes mean nothing there.
        self.assertOnlyFields(request_pass(email, 1, url="https://shop.example/reset"), "url")

    def test_url_with_fragment_keeps_the_token_in_the_query(self):
        # The token must reach the reset page's server: in the query, before
        # the '#', and the fragment stays (reset_link in auth/password/reset_service.cpp).
        site = site_with_reset_urls("http://localhost/r")
        _, email = create_user("rpfrag")
        reply = request_pass(email, site, url="http://localhost/r#top")
        self.assertReply(reply, 200)
        link = links_in(outbox_rows(email)[-1][5])[0]  # the link's shape, not its token: the row will do
        self.assertRegex(link, r"^http://localhost/r\?token=[^#&]+#top$")
        self.assertIn("token", urllib.parse.parse_qs(urllib.parse.urlsplit(link).query), link)

    def test_url_on_other_hosts_is_refused(self):
        _, email = create_user("rpevil")
        unknown = unique_email("rpevil-none")
        for url in ("https://evil.example/x", "http://localhost@evil.example/", "javascript:alert(1)",
                    "http://localhost.evil.example/", "http://evil.example/?localhost", "//evil.example/x",
                    "http://127.0.0.1.evil.example/", "http://localhost:80@evil.example/", "ftp://localhost/x",
                    "http://evil.example\\@localhost/", "http://local\thost/x", "http://localhost/\r\nX: y",
                    "data:text/html,<script>alert(1)</script>", "/relative/path", "http://", "https://:443/",
                    "http://[::1]/x", "http://localhost%2eevil.example/",
                    "http://l\u043ecalhost/x", "http://localhost\u3002evil.example/"):
            with self.subTest(url=url):
                self.assertOnlyFields(request_pass(email, url=url), "url")
                # The same answer for an unregistered address: the url check is no oracle.
                self.assertOnlyFields(request_pass(unknown, url=url), "url")
        self.assertEqual(outbox_rows(email), [])
        for bad_type in (5, True, {"u": 1}, ["http://localhost/"], "http://localhost/" + "a" * 3000):
            with self.subTest(url=str(bad_type)[:40]):
                self.assertOnlyFields(request_pass(email, url=bad_type), "url")
        self.assertEqual(outbox_rows(email), [])

    def test_link_never_comes_from_host_headers(self):
        _, email = create_user("rphost")
        headers = {"Host": "evil.example", "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https",
                   "Forwarded": "host=evil.example;proto=https", "X-Original-Host": "evil.example",
                   "X-Host": "evil.example"}
        reply = request("POST", "/auth/request-pass", {"email": email, "appID": 1}, headers=headers)
        self.assertReply(reply, 200)
        rows = outbox_rows(email)
        self.assertEqual(len(rows), 1)
        body = rows[0][5]
        self.assertNotIn("evil.example", body)
        self.assertNotIn("evil.example", rows[0][4])
        link = links_in(body)[0]
        self.assertTrue(link.startswith(SITE1_LINK), link)

    def test_site_without_template_uses_the_built_in_one(self):
        site = int(svc_stack.admin("site", "create", "--user-pool", "default", "--name", "reset-test-%s" % secrets.token_hex(4),
                                   "--domain", "reset.example",
                                   "--reset-url", "https://reset.example/pw,https://accounts.example/r",
                                   "--email-from", "Reset <no-reply@reset.example>").stdout.strip().splitlines()[-1])
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_notifications WHERE site_id = %d" % site), "0")
        _, email = create_user("rpsite")
        self.assertReply(request_pass(email, site), 200)
        rows = outbox_rows(email)
        self.assertEqual(len(rows), 1)
        row_id, event, _, site_id, subject, _ = rows[0]
        self.assertEqual((event, site_id), ("password-reset", str(site)))
        self.assertTrue(subject)
        link = delivered_link(int(row_id))  # the row's own token may be redacted by now
        self.assertTrue(link.startswith("https://reset.example/pw?token="), link)
        # Site 1's reset URLs mean nothing for this site, and vice versa.
        self.assertOnlyFields(request_pass(email, site, url=SITE1_RESET_URL), "url")
        self.assertReply(request_pass(email, site, url="https://accounts.example/r"), 200)
        self.assertTrue(links_in(outbox_rows(email)[-1][5])[0].startswith("https://accounts.example/r?token="))
        self.assertOnlyFields(request_pass(email, 1, url="https://accounts.example/r"), "url")
        # The token is good for a reset whichever site sent it.
        self.assertReply(reset(token_of(link)), 200, RESET_OK)
        # A site with e-mail disabled: the same reply, no outbox row.
        svc_stack.admin("site", "set", "--site", str(site), "--disable-email", "true")
        before = len(outbox_rows(email))
        a = request_pass(email, site)
        self.assertReply(a, 200, {"status": "Success",
                                  "message": "An e-mail with reset instructions has been sent to " + email})
        self.assertEqual(len(outbox_rows(email)), before)

    # --- the round trip through the real e-mail ------------------------------------------------

    def test_round_trip_through_the_delivered_email(self):
        uid, email = create_user("rptrip")
        before_login = login(email, PASSWORD)
        self.assertReply(before_login, 200)
        old_pair = before_login.json["token"]

        self.assertReply(request_pass(email), 200)
        msg = svc_stack.wait_for_outbox_mail(svc_stack.newest_outbox_id(email))
        self.assertEqual(str(msg["To"]), email)
        self.assertTrue(str(msg["Subject"]))
        links = links_in(svc_stack.mail_html(msg))
        self.assertEqual(len(links), 1, links)
        link = links[0]
        self.assertTrue(link.startswith(SITE1_LINK), link)
        token = token_of(link)

        self.assertReply(reset(token), 200, RESET_OK)
        self.assertReply(login(email, NEW_PASSWORD), 200)
        self.assertReply(login(email, PASSWORD), 401, INVALID_CREDENTIALS)
        # Single use: the same token again.
        self.assertReply(reset(token, "Another@Pass77"), 400, RESET_INVALID)
        self.assertReply(login(email, NEW_PASSWORD), 200)
        # A refresh token from before the reset is dead.
        stale = post("/auth/refresh-token", {"payload": {"access_token": old_pair["access_token"],
                                                        "refresh_token": old_pair["refresh_token"]}})
        self.assertEqual(stale.status, 401, stale)
        self.assertEqual(stale.json.get("status"), "Failed", stale)
        # Audit and storage.
        events = [r[0] for r in sql("SELECT event FROM svc_audit_log WHERE user_id = %d ORDER BY id" % uid)]
        self.assertIn("reset_requested", events)
        self.assertIn("reset_done", events)
        self.assertLess(events.index("reset_requested"), events.index("reset_done"))
        stored = sql_value("SELECT password FROM svc_users WHERE id = %d" % uid)
        self.assertTrue(stored.startswith("$argon2id$"), stored)
        dump = " ".join(str(c) for r in sql("SELECT * FROM svc_audit_log WHERE user_id = %d" % uid) for c in r)
        self.assertNotIn(token, dump)
        self.assertNotIn(token.split(".")[2], dump)
        self.assertNotIn(NEW_PASSWORD, dump)

    def test_reset_writes_one_version_row_without_secrets(self):
        uid, email = create_user("rpversion")
        old_hash = sql_value("SELECT password FROM svc_users WHERE id = %d" % uid)
        self.assertEqual(versions("svc_users", uid), [])
        token, _ = fresh_token(email)
        self.assertReply(reset(token, "weak"), 400)  # a refused reset writes no row
        self.assertEqual(versions("svc_users", uid), [])
        self.assertReply(reset(token), 200, RESET_OK)
        rows = versions("svc_users", uid)
        self.assertEqual(rows, [("update", {"id": uid, "user_email": email, "first_name": "Re", "last_name": "Set",
                                            "primary_role": "user"})])
        new_hash = sql_value("SELECT password FROM svc_users WHERE id = %d" % uid)
        dump = sql_value("SELECT snapshot FROM svc_versions WHERE table_name = 'svc_users' AND record_id = %d" % uid)
        for secret in (old_hash, new_hash, NEW_PASSWORD, PASSWORD, token):
            self.assertNotIn(secret, dump)
        self.assertReply(reset(token, "Another@Pass77"), 400, RESET_INVALID)  # spent: no second row
        self.assertEqual(len(versions("svc_users", uid)), 1)

    # --- a second auth table ------------------------------------------------------------------

    def test_staff_user_resets_through_the_delivered_email(self):
        uid, email = create_user("rpstaff", table="svc_staff")
        self.assertReply(login(email, PASSWORD, authTable="svc_staff"), 200)
        reply = request_pass(email, authTable="svc_staff")
        self.assertReply(reply, 200, {"status": "Success",
                                      "message": "An e-mail with reset instructions has been sent to " + email})
        link = delivered_link(svc_stack.newest_outbox_id(email))
        self.assertTrue(link.startswith(SITE1_LINK), link)
        token = token_of(link)
        self.assertEqual(json.loads(b64url_decode(token.split(".")[1]))["tbl"], "svc_staff")

        # authTable omitted: the token's own table.
        self.assertReply(reset(token), 200, RESET_OK)
        self.assertReply(login(email, NEW_PASSWORD, authTable="svc_staff"), 200)
        self.assertReply(login(email, PASSWORD, authTable="svc_staff"), 401, INVALID_CREDENTIALS)
        self.assertReply(reset(token, "Another@Pass77"), 400, RESET_INVALID)
        # (ids of the two tables overlap: the audit row's auth_table tells them apart)
        self.assertEqual(sql("SELECT event FROM svc_audit_log WHERE user_id = %d AND auth_table = 'svc_staff'"
                             " AND event IN ('reset_requested', 'reset_done') ORDER BY id" % uid),
                         [["reset_requested"], ["reset_done"]])
        self.assertEqual([a for a, _ in versions("svc_staff", uid)], ["update"])

        # A token of one table named with another is as bad as a bad token, and
        # naming its own table explicitly works.
        token, _ = fresh_token(email, authTable="svc_staff")
        self.assertReply(reset(token, "Third@Pass123", authTable="svc_users"), 400, RESET_INVALID)
        self.assertReply(login(email, NEW_PASSWORD, authTable="svc_staff"), 200)
        self.assertReply(reset(token, "Third@Pass123", authTable="svc_staff"), 200, RESET_OK)
        self.assertReply(login(email, "Third@Pass123", authTable="svc_staff"), 200)

    def test_request_pass_looks_only_in_the_named_table(self):
        _, staff = create_user("rpstaff-only", table="svc_staff")
        _, user = create_user("rpuser-only")
        # The same reply as for any address, and no mail: each is unknown to the other table.
        for email, table in ((staff, "svc_users"), (user, "svc_staff")):
            with self.subTest(email=email, authTable=table):
                self.assertReply(request_pass(email, authTable=table), 200,
                                 {"status": "Success",
                                  "message": "An e-mail with reset instructions has been sent to " + email})
                self.assertEqual(outbox_rows(email), [])
        self.assertReply(request_pass(staff), 200)  # authTable omitted: svc_users
        self.assertEqual(outbox_rows(staff), [])

    def test_request_pass_auth_table_must_be_allowlisted(self):
        _, email = create_user("rptable-rp", table="svc_staff")
        for table in ("svc_sites", "svc_staff; DROP TABLE svc_related", "`svc_staff`", "SVC_STAFF", "",
                      "information_schema.tables", 5, ["svc_staff"], "a" * 2000):
            with self.subTest(authTable=str(table)[:40]):
                self.assertOnlyFields(request_pass(email, authTable=table), "authTable")
        self.assertEqual(outbox_rows(email), [])

    def test_text_part_of_the_reset_email_carries_the_link(self):
        # A text-only mail client must be able to reset too: the text/plain
        # alternative has to contain the URL (the HTML href alone is not enough).
        _, email = create_user("rptext")
        self.assertReply(request_pass(email), 200)
        msg = svc_stack.wait_for_outbox_mail(svc_stack.newest_outbox_id(email))
        token = token_of(links_in(svc_stack.mail_html(msg))[0])
        text = msg.get_body(preferencelist=("plain",))
        self.assertIsNotNone(text, "no text/plain part")
        self.assertIn(token, text.get_content().replace("\n", ""), text.get_content())

    def test_an_older_token_dies_with_the_first_reset(self):
        _, email = create_user("rptwo")
        first, _ = fresh_token(email)
        second, _ = fresh_token(email)
        self.assertNotEqual(first, second)
        self.assertReply(reset(second), 200, RESET_OK)
        self.assertReply(reset(first, "Other@Pass123"), 400, RESET_INVALID)
        self.assertReply(login(email, NEW_PASSWORD), 200)

    def test_concurrent_resets_with_one_token_succeed_once(self):
        _, email = create_user("rprace")
        token, _ = fresh_token(email)
        passwords = ["Race@Pass%02d" % i for i in range(4)]
        replies = {}

        def go(pw):
            replies[pw] = reset(token, pw)
        run_concurrently(go, passwords)
        winners = [pw for pw, r in replies.items() if r.status == 200]
        self.assertEqual(len(winners), 1, replies)
        for pw, r in replies.items():
            self.assertEqual(r.json, RESET_OK if pw in winners else RESET_INVALID, r)
        self.assertReply(login(email, winners[0]), 200)
        for pw in passwords:
            if pw not in winners:
                self.assertReply(login(email, pw), 401, INVALID_CREDENTIALS)

    # --- reset-pass: errors -------------------------------------------------------------------

    def test_weak_password_lists_requirements_and_keeps_the_token(self):
        _, email = create_user("rpweak")
        token, _ = fresh_token(email)
        reply = reset(token, "weak")
        self.assertReply(reply, 400)
        self.assertEqual(reply.json["status"], "Failed")
        self.assertEqual(reply.json["message"], "Password does not meet security requirements")
        self.assertEqual(reply.json["requirements"], {"minLength": False, "hasUpperCase": False,
                                                      "hasLowerCase": True, "hasNumber": False,
                                                      "hasSpecialChar": False})
        reply = reset(token, "ALLUPPERCASE123")
        self.assertEqual(reply.json["requirements"], {"minLength": True, "hasUpperCase": True,
                                                      "hasLowerCase": False, "hasNumber": True,
                                                      "hasSpecialChar": False})
        # Neither attempt used the token up.
        self.assertReply(login(email, PASSWORD), 200)
        self.assertReply(reset(token), 200, RESET_OK)

    def test_mismatch_is_a_validation_error_on_confirm_password(self):
        _, email = create_user("rpmis")
        token, _ = fresh_token(email)
        reply = reset(token, NEW_PASSWORD, "Fresh@Pass98")
        self.assertValidation(reply, "confirmPassword")
        self.assertIn({"field": "confirmPassword", "message": "Passwords do not match"}, reply.json["errors"])
        self.assertReply(login(email, PASSWORD), 200)
        self.assertReply(reset(token), 200, RESET_OK)

    def test_bad_tokens_are_invalid(self):
        uid, email = create_user("rpbad")
        token, _ = fresh_token(email)
        h, p, s = token.split(".")
        i = len(p) // 2
        flipped = h + "." + p[:i] + ("A" if p[i] != "A" else "B") + p[i + 1:] + "." + s
        i = len(s) // 2
        bad_sig = h + "." + p + "." + s[:i] + ("A" if s[i] != "A" else "B") + s[i + 1:]
        pair = login(email, PASSWORD).json["token"]
        payload = json.loads(b64url_decode(p))
        forged_alg_none = b64url(json.dumps({"alg": "none", "typ": "JWT", "kid": KID})) + "." + p + "."
        other_key = mint_jwt(payload, secret=secrets.token_bytes(32))
        for name, bad in (("payload flipped", flipped), ("signature flipped", bad_sig),
                          ("access token", pair["access_token"]), ("refresh token", pair["refresh_token"]),
                          ("garbage", "garbage"), ("three dots", "a.b.c"), ("alg none", forged_alg_none),
                          ("other key", other_key), ("sql", "' OR '1'='1"), ("token twice", token + token),
                          ("header only", h), ("no signature", h + "." + p + ".")):
            with self.subTest(token=name):
                self.assertReply(reset(bad), 400, RESET_INVALID)
        # The genuine token for svc_users is no token for another allowlisted table.
        self.assertReply(reset(token, authTable="svc_staff"), 400, RESET_INVALID)
        self.assertReply(login(email, PASSWORD), 200)
        self.assertReply(reset(token), 200, RESET_OK)

    def test_hand_made_token_format(self):
        uid, email = create_user("rphand")
        stored = sql_value("SELECT password FROM svc_users WHERE id = %d" % uid)
        now = int(time.time())
        expired = mint_jwt(reset_claims(uid, now - 5, fingerprint(stored, email)))
        self.assertReply(reset(expired), 400, RESET_INVALID)
        # Negative controls of the format, each with a future exp.
        for name, claims in (
                ("wrong pwf", reset_claims(uid, now + 600, fingerprint(stored + "x", email))),
                ("another address", reset_claims(uid, now + 600, fingerprint(stored, "old." + email))),
                ("no pwf", {k: v for k, v in reset_claims(uid, now + 600, fingerprint(stored, email)).items() if k != "pwf"}),
                ("typ access", dict(reset_claims(uid, now + 600, fingerprint(stored, email)), typ="access")),
                ("tbl svc_staff", reset_claims(uid, now + 600, fingerprint(stored, email), table="svc_staff")),
                ("other user", reset_claims(1, now + 600, fingerprint(stored, email))),
                ("sub as number", dict(reset_claims(uid, now + 600, fingerprint(stored, email)), sub=uid)),
                ("no aud", {k: v for k, v in reset_claims(uid, now + 600, fingerprint(stored, email)).items() if k != "aud"}),
                ("aud svc-access", dict(reset_claims(uid, now + 600, fingerprint(stored, email)), aud="svc-access"))):
            with self.subTest(claims=name):
                self.assertReply(reset(mint_jwt(claims)), 400, RESET_INVALID)
        with self.subTest(claims="signed with the access tokens' key"):
            self.assertReply(reset(mint_jwt(reset_claims(uid, now + 600, fingerprint(stored, email)), secret=JWT_SECRET)),
                             400, RESET_INVALID)
        self.assertReply(login(email, PASSWORD), 200)
        # The same hand-made token with a future exp is accepted.
        good = mint_jwt(reset_claims(uid, now + 600, fingerprint(stored, email)))
        self.assertReply(reset(good), 200, RESET_OK)
        self.assertReply(login(email, NEW_PASSWORD), 200)
        self.assertReply(reset(good, "Third@Pass123"), 400, RESET_INVALID)

    def test_reset_pass_missing_fields(self):
        self.assertOnlyFields(post("/auth/reset-pass", {}), "password", "confirmPassword", "reset_password_token")
        self.assertOnlyFields(post("/auth/reset-pass", {"password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD}),
                              "reset_password_token")
        self.assertOnlyFields(post("/auth/reset-pass", {"password": NEW_PASSWORD, "reset_password_token": "x.y.z"}),
                              "confirmPassword")
        self.assertOnlyFields(post("/auth/reset-pass", {"confirmPassword": NEW_PASSWORD,
                                                        "reset_password_token": "x.y.z"}), "password")
        self.assertOnlyFields(reset(""), "reset_password_token")

    def test_auth_table_must_be_allowlisted(self):
        _, email = create_user("rptable")
        token, _ = fresh_token(email)
        count = sql_value("SELECT COUNT(*) FROM svc_related")
        for table in ("svc_sites", "svc_users; DROP TABLE svc_related", "`svc_users`", "SVC_USERS", "",
                      "information_schema.tables", "svc_users ", "svc_users\x00", 5, ["svc_users"], "a" * 2000):
            with self.subTest(authTable=str(table)[:40]):
                self.assertOnlyFields(reset(token, authTable=table), "authTable")
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_related"), count)
        self.assertReply(login(email, PASSWORD), 200)
        self.assertReply(reset(token, authTable="svc_users"), 200, RESET_OK)

    # --- hostile input ------------------------------------------------------------------------

    def test_hostile_request_pass(self):
        long = "a" * 2000
        cases = [
            {"email": "x' OR '1'='1@example.com", "appID": 1},
            {"email": "x'or'1'='1@example.com", "appID": 1},
            {"email": "a@example.com\r\nBcc: victim@evil.example", "appID": 1},
            {"email": "<b>hi</b>@example.com", "appID": 1},
            {"email": long + "@example.com", "appID": 1},
            {"email": "u@" + long + ".com", "appID": 1},
            {"email": 12345, "appID": 1},
            {"email": ["a@example.com"], "appID": 1},
            {"email": "demo@example.com", "appID": "1; DROP TABLE svc_users"},
            {"email": "demo@example.com", "appID": long},
            {"email": "a@example.com", "appID": 1, "url": "http://localhost/\"><script>alert(1)</script>"},
            {"email": "a@example.com", "appID": 1, "url": "http://localhost/" + long},
            {"email": "a@example.com", "appID": 1, "url": "http://localhost/x\r\nSet-Cookie: a=b"},
        ]
        for body in cases:
            with self.subTest(body=str(body)[:80]):
                reply = self.assertSafe(post("/auth/request-pass", body))
                self.assertNotIn("set-cookie", reply.headers)
        for raw in (b"{not json", b"[]", b"null", b'"a@example.com"', b"\xff\xfe", b'{"email":"a@example.com","appID":1'):
            with self.subTest(raw=raw):
                self.assertSafe(post("/auth/request-pass", raw=raw), allowed=(400,))
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_notification_log WHERE bcc LIKE '%evil.example%'"
                                   " OR recipient LIKE '%evil.example%'"), "0")

    def test_hostile_reset_pass(self):
        long = "a" * 2000
        cases = [
            {"password": "X' OR 1=1 --aA1@", "confirmPassword": "X' OR 1=1 --aA1@", "reset_password_token": "x"},
            {"password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD, "reset_password_token": "'; DROP TABLE svc_users; --"},
            {"password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD, "reset_password_token": long},
            {"password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD, "reset_password_token": "a" * 9000},
            {"password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD, "reset_password_token": "<script>\r\n</script>"},
            {"password": "Aa1@" + long, "confirmPassword": "Aa1@" + long, "reset_password_token": "x.y.z"},
            {"password": 12345678, "confirmPassword": 12345678, "reset_password_token": "x.y.z"},
            {"password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD, "reset_password_token": 42},
            {"password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD, "reset_password_token": {"a": 1}},
            {"password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD, "reset_password_token": "x.y.z",
             "authTable": "svc_users`; DROP TABLE svc_related; --"},
        ]
        for body in cases:
            with self.subTest(body=str(body)[:80]):
                reply = self.assertSafe(post("/auth/reset-pass", body), allowed=(400,))
                self.assertIn(reply.json["message"], ("Validation error", RESET_INVALID["message"],
                                                      "Password does not meet security requirements"))
        for raw in (b"{not json", b"[]", b"null", b"\xff\xfe"):
            with self.subTest(raw=raw):
                self.assertSafe(post("/auth/reset-pass", raw=raw), allowed=(400,))
        self.assertEqual(sql_value("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'svc'"
                                   " AND table_name IN ('svc_users', 'svc_related')"), "2")


if __name__ == "__main__":
    svc_stack.main()

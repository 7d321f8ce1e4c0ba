"""Tenant isolation and request hygiene, as transcripts through nginx.

Covers: `svc-admin site create` generating a key by default (printed once as
`site_key: KEY`, only its hash stored), the 401 for a keyed site without
its key, `--api-key none` making a keyless site on purpose (marked KEYLESS by
`site list` and `site show`), `site set --api-key generate` rotating a key;
the demo site's key from the stack's env file; `appID` of login and sign-up
naming an active site; 415 for a body that is not declared
application/json; 400 for a repeated member name; `--reset-url http://` to
a non-loopback host refused by svc-admin. After `site set` the test waits
for [server] site_cache_seconds, the bound within which every worker shows
the change (nginx picks the worker), and then expects it on every request.
"""

import hashlib
import os
import re
import time
import uuid

import svc_stack
from svc_stack import ApiTest, admin, cache_seconds, post, q, sql, sql_value, unique_email, wait_for_every_worker

TAG = "%d%s" % (os.getpid(), uuid.uuid4().hex[:6])
UNAUTHORIZED = {"status": "Error", "message": "Unauthorized"}
NOT_FOUND = {"status": "Failed", "message": "Notification event not found or disabled"}
UNSUPPORTED = {"status": "Failed", "message": "Unsupported Media Type"}
SENDER = ("--email-from", "Keys <keys@example.org>")  # every site that mails has a sender (issue 36)
KEY_LINE = re.compile(r"^site_key: ([A-Za-z0-9_-]{43})$", re.M)


def tearDownModule():
    sql("DELETE FROM svc_sites WHERE name LIKE %s" % q("keys-%-" + TAG))


def notify(site, key=None):
    headers = {"site-id": str(site)}
    if key is not None:
        headers["x-site-key"] = key
    return post("/message/notification", {"event": "no-such-event-" + TAG, "email": "k@example.com"}, headers=headers)


def on_every_worker(site, key, expected, changed_by):
    """notify(site, key) once no worker may answer from a site row read
    before an admin change made before `changed_by` ([server]
    site_cache_seconds); every such reply must then be `expected`."""
    seconds = cache_seconds("server", "site_cache_seconds", 1)
    return wait_for_every_worker("site %d: %s" % (site, expected), lambda: (
        lambda reply: reply if reply.json == expected else None)(notify(site, key)), changed_by, seconds)


class SiteKeyTest(ApiTest):
    def test_create_generates_a_key_printed_once_and_stores_its_hash(self):
        out = admin("site", "create", "--user-pool", "default", "--name", "keys-default-" + TAG, *SENDER).stdout
        key = KEY_LINE.search(out).group(1)
        site = int(out.strip().splitlines()[-1])
        stored = sql_value("SELECT api_key_hash FROM svc_sites WHERE id = %d" % site)
        self.assertEqual(stored, hashlib.blake2b(key.encode(), digest_size=32).hexdigest())
        self.assertNotIn(key, admin("site", "show", "--site", str(site)).stdout)

        self.assertReply(notify(site), 401, UNAUTHORIZED)
        self.assertReply(notify(site, ""), 401, UNAUTHORIZED)
        self.assertReply(notify(site, key + "x"), 401, UNAUTHORIZED)
        self.assertReply(notify(site, key[:-1]), 401, UNAUTHORIZED)
        self.assertReply(notify(site, key), 200, NOT_FOUND)

    def test_keyless_on_purpose_is_marked(self):
        out = admin("site", "create", "--user-pool", "default", "--name", "keys-none-" + TAG, "--api-key", "none", *SENDER).stdout
        self.assertIsNone(KEY_LINE.search(out))
        site = int(out.strip().splitlines()[-1])
        self.assertIsNone(sql_value("SELECT NULLIF(api_key_hash, '') FROM svc_sites WHERE id = %d" % site))
        self.assertReply(notify(site), 200, NOT_FOUND)
        self.assertIn("KEYLESS", admin("site", "show", "--site", str(site)).stdout)
        listed = [line for line in admin("site", "list").stdout.splitlines() if line.startswith("%d\t" % site)]
        self.assertEqual(len(listed), 1)
        self.assertTrue(listed[0].endswith("\tKEYLESS"), listed)

    def test_set_generate_adds_and_rotates_a_key(self):
        out = admin("site", "create", "--user-pool", "default", "--name", "keys-rotate-" + TAG, "--api-key", "none", *SENDER).stdout
        site = int(out.strip().splitlines()[-1])
        first = KEY_LINE.search(admin("site", "set", "--site", str(site), "--api-key", "generate").stdout).group(1)
        self.assertReply(on_every_worker(site, None, UNAUTHORIZED, time.time()), 401, UNAUTHORIZED)
        self.assertReply(notify(site, first), 200, NOT_FOUND)
        listed = [line for line in admin("site", "list").stdout.splitlines() if line.startswith("%d\t" % site)]
        self.assertTrue(listed[0].endswith("\tkeyed"), listed)

        second = KEY_LINE.search(admin("site", "set", "--site", str(site), "--api-key", "generate").stdout).group(1)
        self.assertNotEqual(first, second)
        self.assertReply(on_every_worker(site, first, UNAUTHORIZED, time.time()), 401, UNAUTHORIZED)
        self.assertReply(notify(site, second), 200, NOT_FOUND)

    def test_demo_site_has_a_key(self):
        self.assertRegex(svc_stack.SITE_KEY, r"^[A-Za-z0-9_-]{43}$")
        self.assertReply(notify(1), 401, UNAUTHORIZED)
        reply = post("/message/notification", {"event": "no-such-event-" + TAG, "email": "k@example.com"},
                     headers=svc_stack.site_headers())
        self.assertReply(reply, 200, NOT_FOUND)

    def test_http_reset_url_only_for_loopback(self):
        bad = admin("site", "create", "--user-pool", "default", "--name", "keys-reset-" + TAG, "--reset-url", "http://shop.example/reset",
                    check=False)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("--reset-url", bad.stderr)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_sites WHERE name = %s" % q("keys-reset-" + TAG)), "0")
        ok = admin("site", "create", "--user-pool", "default", "--name", "keys-reset-ok-" + TAG, "--reset-url", "http://127.0.0.1:9/reset",
                   *SENDER)
        self.assertRegex(ok.stdout.strip().splitlines()[-1], r"^\d+$")


class AppIdTest(ApiTest):
    def test_login_and_sign_up_need_an_active_site(self):
        inactive = int(admin("site", "create", "--user-pool", "default", "--name", "keys-off-" + TAG, "--active", "false", *SENDER,
                             "--api-key", "none").stdout.strip().splitlines()[-1])
        for app in (2_000_000_000, inactive):
            with self.subTest(appID=app):
                reply = post("/auth/login", {"email": "demo@example.com", "password": "Demo@2026!", "appID": app})
                self.assertOnlyFields(reply, "appID")
                email = unique_email("appid")
                reply = post("/auth/sign-up", {"email": email, "password": "Str0ng@Pass", "appID": app})
                self.assertOnlyFields(reply, "appID")
                self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE user_email = %s" % q(email)), "0")
        self.assertEqual(post("/auth/login", {"email": "demo@example.com", "password": "Demo@2026!",
                                              "appID": 1}).status, 200)
        self.assertEqual(post("/auth/login", {"email": "demo@example.com", "password": "Demo@2026!"}).status, 200)


class MediaTypeTest(ApiTest):
    def test_only_application_json(self):
        body = {"email": "nobody@example.com", "appID": 1}
        for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                      "application/jsonp", "text/json"):
            with self.subTest(ctype):
                self.assertReply(post("/auth/request-pass", body, headers={"Content-Type": ctype}), 415, UNSUPPORTED)
        for ctype in ("application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8"):
            with self.subTest(ctype):
                self.assertEqual(post("/auth/request-pass", body, headers={"Content-Type": ctype}).status, 200)
        # A site route checks the site first, then the media type.
        reply = post("/message/notification", {"event": "x"}, headers=dict(svc_stack.site_headers(),
                                                                            **{"Content-Type": "text/plain"}))
        self.assertReply(reply, 415, UNSUPPORTED)

    def test_duplicate_members(self):
        reply = post("/auth/login", raw=b'{"email":"nobody@example.com","password":"Demo@2026!",'
                                        b'"email":"demo@example.com"}')
        self.assertOnlyFields(reply, "email")
        self.assertEqual(reply.json["errors"][0]["message"], "Duplicate member name")
        reply = post("/message/notification", raw=b'{"event":"x","data":{"a":1,"a":2}}',
                     headers=svc_stack.site_headers())
        self.assertOnlyFields(reply, "data")


if __name__ == "__main__":
    svc_stack.main()

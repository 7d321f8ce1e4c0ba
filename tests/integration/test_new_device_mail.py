"""The new-device mail (issue 37, docs/decisions.md "Sessions: the new-device
mail") through nginx + workers + MariaDB + svc-sender + the SMTP sink.

On a site with `site set --new-device-mail on`, a sign-in from a device (the
svc_device cookie a sign-in reply sets, not the user agent: a copied user
agent is a new device) the user's sessions have not shown queues
`new-sign-in` once (built-in template, in the user's language) with time,
the device's name (never the user agent's text), network and a link to
/account/not-me carrying the token after '#'; a second sign-in from the same
device, a sign-up and any sign-in on a site with it off queue none.
POST /auth/sessions/not-me with the mailed token ends every session of the
user (refresh: 401 Refresh token has been revoked) and mails a password
reset; the token is spent once, and a garbage, expired or foreign token gets
400 in the spec's shape. The page itself, in Chromium: test_not_me_page.py.
"""

import hashlib
import hmac
import html
import re
import secrets
import time
import urllib.parse

import svc_stack
from svc_stack import ApiTest, HTTP_PORT, admin, b64url, post, sql, sql_value, unique_email
import runner
from test_auth_tokens import parts, refresh
from test_password_reset import JWT_SECRET, mint_jwt

PASSWORD = "Device@Mail42"
HREF = re.compile(r'href="([^"]+)"')
PAGE = "http://127.0.0.1:%d/account/not-me" % HTTP_PORT
SIGNED_OUT = {"status": "Success", "message": "Signed out everywhere"}
TOKEN_INVALID = {"status": "Failed", "message": "Sign-out token has expired or is invalid"}
REVOKED = {"status": "Failed", "message": "Refresh token has been revoked"}
NOT_ME_SIGNING_KEY = hmac.new(JWT_SECRET, b"svc-not-me-token-key", hashlib.sha256).digest()
LAPTOP = "Mozilla/5.0 (X11; Linux x86_64) NewDeviceTest/1.0 laptop"
PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) NewDeviceTest/1.0 <phone> & co"


def create_site(name, new_device_mail):
    out = admin("site", "create", "--user-pool", "default", "--name", name, "--domain", "new-device.example",
                "--email-from", "Devices <no-reply@new-device.example>",
                "--new-device-mail", "on" if new_device_mail else "off").stdout
    return int(out.strip().splitlines()[-1])


# A device is a browser: its user agent and the svc_device cookie svc set in
# it (issue 48: devices are known by the cookie, not by the user agent).
JARS = {}


def from_device(path, body, user_agent, cookie=True):
    """POSTs `body` from the browser `user_agent`, sending and keeping its
    device cookie (cookie=False: a request that copies the user agent only)."""
    headers = {"User-Agent": user_agent}
    if cookie and user_agent in JARS:
        headers["Cookie"] = "svc_device=" + JARS[user_agent]
    reply = svc_stack.request("POST", path, body, headers=headers)
    assert reply.status == 200, reply
    set_cookie = reply.headers.get("set-cookie", "")
    if cookie and set_cookie.startswith("svc_device="):
        JARS[user_agent] = set_cookie.split(";")[0].split("=", 1)[1]
    return reply


def sign_up(site, user_agent, locale=None):
    """A new user of `site` signed up from `user_agent`: (email, token)."""
    email = unique_email("newdevice")
    body = {"email": email, "password": PASSWORD, "firstname": "Nu", "lastname": "Device", "appID": site}
    if locale:
        body["locale"] = locale
    return email, from_device("/auth/sign-up", body, user_agent).json["token"]


def login(email, site, user_agent, cookie=True):
    body = {"email": email, "password": PASSWORD, "appID": site}
    return from_device("/auth/login", body, user_agent, cookie).json["token"]


def notices(email):
    """How many new-sign-in mails are queued (or sent) to `email`."""
    return int(sql_value("SELECT COUNT(*) FROM svc_notification_log WHERE recipient = %s AND event = 'new-sign-in'"
                         % svc_stack.q(email)))


def newest_of(email, event):
    value = sql_value("SELECT MAX(id) FROM svc_notification_log WHERE recipient = %s AND event = %s"
                      % (svc_stack.q(email), svc_stack.q(event)))
    return int(value) if value is not None else None


def notice_link(email):
    """The one link of the delivered new-sign-in mail to `email` and its HTML."""
    msg = svc_stack.wait_for_outbox_mail(newest_of(email, "new-sign-in"))
    body = svc_stack.mail_html(msg)
    links = [html.unescape(h) for h in HREF.findall(body)]
    assert len(links) == 1, links
    return msg, body, links[0]


def fragment(link):
    return urllib.parse.parse_qs(urllib.parse.urlsplit(link).fragment)


def not_me(token):
    return post("/auth/sessions/not-me", {"token": token})


class NewDeviceMailTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    @classmethod
    def setUpClass(cls):
        cls.site = create_site("New device on", True)

    def setUp(self):
        svc_stack.require_sender(self)

    def test_site_set_and_show_print_the_setting(self):
        site = create_site("New device toggled", False)
        self.assertIn("new_device_mail: off", admin("site", "show", "--site", str(site)).stdout)
        out = admin("site", "set", "--site", str(site), "--new-device-mail", "on").stdout
        self.assertIn("new_device_mail: on", out)
        self.assertEqual(sql_value("SELECT new_device_mail FROM svc_sites WHERE id = %d" % site), "1")
        bad = admin("site", "set", "--site", str(site), "--new-device-mail", "maybe", check=False)
        self.assertNotEqual(bad.returncode, 0)

    def test_a_new_device_is_mailed_once_and_a_known_one_never(self):
        email, _ = sign_up(self.site, LAPTOP)
        self.assertEqual(notices(email), 0, "a sign-up is no new device")
        login(email, self.site, LAPTOP)
        self.assertEqual(notices(email), 0, "the device of the sign-up is known")
        phone = login(email, self.site, PHONE)
        self.assertEqual(notices(email), 1)
        login(email, self.site, PHONE)
        login(email, self.site, LAPTOP)
        self.assertEqual(notices(email), 1, "both devices are known now")

        msg, body, link = notice_link(email)
        self.assertEqual(msg["To"], email)
        self.assertEqual(str(msg["Subject"]), "New sign-in to your account")
        self.assertIn("Device: a browser on iPhone", body)  # named, not quoted (issue 48)
        self.assertNotIn("phone&gt;", body)
        self.assertNotIn("NewDeviceTest", body)
        self.assertIn("Network: 127.0.0.1", body)
        self.assertRegex(body, r"Time: \d{4}-\d\d-\d\d \d\d:\d\d UTC")
        self.assertEqual(sql_value("SELECT priority FROM svc_notification_log WHERE id = %d"
                                   % newest_of(email, "new-sign-in")), "0")
        # The token and what the page shows travel after '#' only.
        self.assertTrue(link.startswith(PAGE + "#token="), link)
        shown = fragment(link)
        self.assertEqual(shown["device"], ["a browser on iPhone"])
        self.assertEqual(shown["network"], ["127.0.0.1"])
        claims = parts(shown["token"][0])[1]
        self.assertEqual((claims["typ"], claims["aud"], claims["app"]), ("not-me", "svc-not-me", self.site))
        self.assertEqual(claims["sid"], parts(phone["refresh_token"])[1]["sid"])
        self.assertEqual(claims["exp"] - claims["iat"], 7 * 86400)

    def test_a_copied_user_agent_does_not_hide_a_new_device(self):
        # Issue 48: the owner's user agent, copied by whoever has the
        # password, made the sign-in look known and no mail went out.
        email, _ = sign_up(self.site, LAPTOP)
        login(email, self.site, LAPTOP)
        self.assertEqual(notices(email), 0)
        login(email, self.site, LAPTOP, cookie=False)
        self.assertEqual(notices(email), 1)
        _, body, _ = notice_link(email)
        self.assertIn("a browser on Linux", body)

    def test_a_sign_in_reply_sets_the_device_cookie_once(self):
        reply = svc_stack.request("POST", "/auth/sign-up", {"email": unique_email("newdevice-cookie"),
                                                            "password": PASSWORD, "appID": self.site},
                                  headers={"User-Agent": "a fresh browser"})
        self.assertEqual(reply.status, 200, reply)
        cookie = reply.headers.get("set-cookie", "")
        self.assertRegex(cookie, r"^svc_device=[A-Za-z0-9_-]{22}; Path=/; HttpOnly; SameSite=Lax; Max-Age=34560000")
        again = svc_stack.request("POST", "/auth/login", {"email": reply.json["token"]["user"]["email"],
                                                          "password": PASSWORD, "appID": self.site},
                                  headers={"User-Agent": "a fresh browser", "Cookie": cookie.split(";")[0]})
        self.assertEqual(again.status, 200, again)
        self.assertNotIn("set-cookie", again.headers)

    def test_in_the_users_language(self):
        email, _ = sign_up(self.site, LAPTOP, locale="de-AT")
        login(email, self.site, PHONE)
        msg, body, _ = notice_link(email)
        self.assertEqual(str(msg["Subject"]), "Neue Anmeldung bei Ihrem Konto")
        self.assertIn("Netzwerk: 127.0.0.1", body)

    def test_a_site_with_it_off_mails_nothing(self):
        site = create_site("New device off", False)
        email, _ = sign_up(site, LAPTOP)
        login(email, site, PHONE)
        login(email, site, "yet another device")
        self.assertEqual(notices(email), 0)
        # Without an appID there is no site to mail from either.
        reply = svc_stack.request("POST", "/auth/login", {"email": email, "password": PASSWORD},
                                  headers={"User-Agent": "a device without a site"})
        self.assertEqual(reply.status, 200, reply)
        self.assertEqual(notices(email), 0)

    def test_not_me_ends_every_session_and_mails_a_reset_once(self):
        email, first = sign_up(self.site, LAPTOP)
        second = login(email, self.site, LAPTOP)
        login(email, self.site, PHONE)
        _, _, link = notice_link(email)
        token = fragment(link)["token"][0]
        resets_before = newest_of(email, "password-reset")
        self.assertIsNone(resets_before)

        self.assertExact(not_me(token), 200, SIGNED_OUT)
        for pair in (first, second):
            self.assertExact(refresh(pair["refresh_token"]), 401, REVOKED)
        uid = int(parts(first["refresh_token"])[1]["sub"])
        self.assertEqual(sql("SELECT COUNT(*), SUM(revoked_reason = 'not_me') FROM svc_sessions"
                             " WHERE auth_table = 'svc_users' AND user_id = %d" % uid), [["3", "3"]])
        reset = svc_stack.wait_for_outbox_mail(newest_of(email, "password-reset"))
        self.assertEqual(str(reset["Subject"]), "Reset your password")
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE event = 'not_me' AND user_id = %d"
                                   % uid), "1")

        # Spent: a second press, even after a new sign-in, changes nothing.
        fresh = login(email, self.site, LAPTOP)
        self.assertExact(not_me(token), 400, TOKEN_INVALID)
        self.assertEqual(refresh(fresh["refresh_token"]).status, 200)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_notification_log WHERE recipient = %s"
                                   " AND event = 'password-reset'" % svc_stack.q(email)), "1")

    def test_bad_tokens_get_400_and_change_nothing(self):
        email, first = sign_up(self.site, LAPTOP)
        uid = int(parts(first["refresh_token"])[1]["sub"])
        sid = parts(first["refresh_token"])[1]["sid"]
        now = int(time.time())
        claims = {"sub": str(uid), "typ": "not-me", "aud": "svc-not-me", "tbl": "svc_users", "app": self.site,
                  "iat": now - 60, "exp": now + 600, "jti": secrets.token_urlsafe(16), "sid": sid}
        self.assertExact(not_me(mint_jwt(claims, NOT_ME_SIGNING_KEY)), 200, SIGNED_OUT)  # the minting is right
        email, first = sign_up(self.site, LAPTOP)
        uid = int(parts(first["refresh_token"])[1]["sub"])
        claims.update(sub=str(uid), sid=parts(first["refresh_token"])[1]["sid"])
        expired = dict(claims, iat=now - 8 * 86400, exp=now - 86400)
        for bad in ("garbage", "a.b.c", first["refresh_token"], first["access_token"],
                    mint_jwt(expired, NOT_ME_SIGNING_KEY),
                    mint_jwt(dict(claims, typ="reset", aud="svc-reset"), NOT_ME_SIGNING_KEY),
                    mint_jwt(claims, hmac.new(JWT_SECRET, b"svc-reset-token-key", hashlib.sha256).digest()),
                    mint_jwt(dict(claims, sid="A" * 22), NOT_ME_SIGNING_KEY),
                    mint_jwt(dict(claims, sub=str(uid + 100000)), NOT_ME_SIGNING_KEY)):
            self.assertExact(not_me(bad), 400, TOKEN_INVALID)
        self.assertOnlyFields(post("/auth/sessions/not-me", {}), "token")
        self.assertEqual(refresh(first["refresh_token"]).status, 200, "nothing ended")
        self.assertIsNone(newest_of(email, "password-reset"))


if __name__ == "__main__":
    runner.main()

"""The OpenID Connect provider (issue 39, docs/oidc.md) with a real relying
party: Debian's Apache with mod_auth_openidc and mod_php (apache_rp.py), two
protected apps on loopback ports, and Debian's headless Chromium
(oidc_apache_browser.js) on http://localhost:<port>, through nginx, the
workers and MariaDB.

The test makes a site with RP id `localhost` (svc's pages are reached as
http://localhost:<stack port>, the stack's oidc_issuer) and two first-party
clients, one per app, each with mod_auth_openidc's front-channel logout URI
(`<redirect_uri>?logout=get`). The browser opens app 1's protected page, is
sent to svc's hosted sign-in page, signs in and comes back to a page that
shows the OIDC_CLAIM_email Apache set: (a) with the password, (b) with the
password and a TOTP code (oathtool's), (c) with a passkey of the virtual
authenticator, (d) on a 390 px wide screen, with a code by e-mail read from
the SMTP sink. After (a), app 2 signs in without a prompt (single sign-on);
then app 1's logout goes through svc's end_session_endpoint, whose page
loads both apps' front-channel logout URIs (with iss and sid) before it
returns to app 1: afterwards both apps send the browser to svc's sign-in page.
"""

import json
import os
import subprocess
import tempfile
import urllib.parse

import apache_rp
import runner
import svc_stack
from svc_stack import ApiTest, HTTP_PORT, admin, post, sql, q
from test_doctor import free_port
from test_email_identity import code_of, delivered
from test_mfa import settle, step_now, totp
from test_passkeys import create_site, new_user

BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "oidc_apache_browser.js")
PASSWORD = "Passkey@2026!"  # new_user's
SVC = "http://localhost:%d" % HTTP_PORT
SIGN_IN = SVC + "/auth/oidc/sign-in?request="


def new_client(site, app, name):
    out = admin("oauth-client", "create", "--site", str(site), "--name", name, "--redirect-uri", app.redirect_uri,
                "--post-logout-redirect-uri", app.logged_out_url,
                "--frontchannel-logout-uri", app.redirect_uri + "?logout=get", "--first-party", "--json").stdout
    return json.loads(out)


def account_token(email, site):
    reply = post("/auth/login", {"email": email, "password": PASSWORD, "appID": site})
    assert reply.status == 200, reply
    return reply.json["token"]["account_token"]


class OidcApacheTest(ApiTest):
    @classmethod
    def setUpClass(cls):
        missing = apache_rp.available()
        assert missing is None, "not installed (scripts/install-deps.sh): " + str(missing)
        cls.site = create_site("OIDC Apache")
        admin("site", "set", "--site", str(cls.site), "--rp-id", "localhost", "--origins", SVC)
        cls.issuer = SVC + "/oidc/%d" % cls.site
        apps = []
        for i in range(2):
            app = apache_rp.App(free_port(), "", "", cls.issuer, name="app%d" % (i + 1))
            client = new_client(cls.site, app, "Apache app %d" % (i + 1))
            assert client["issuer"] == cls.issuer, client
            app.client_id, app.client_secret = client["client_id"], client["client_secret"]
            apps.append(app)
        cls.apps = apps

    def run_browser(self, config, totp_secret):
        def totp_code():
            settle()
            return totp(totp_secret, step_now())

        # What the driver asks for, in its order: the TOTP code, then the mailed one.
        answers = [("totp", totp_code), ("email-code", lambda: code_of(delivered(config["emailCode"]["email"])))]
        with tempfile.TemporaryFile("w+") as err:
            proc = subprocess.Popen(["node", BROWSER_SCRIPT, json.dumps(config)], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=err, text=True,
                                    env=dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1"))
            try:
                for need, answer in answers:
                    asked = proc.stdout.readline()
                    self.assertEqual(json.loads(asked or "null"), {"need": need}, asked)
                    proc.stdin.write(answer() + "\n")
                    proc.stdin.flush()
                out, _ = proc.communicate(timeout=240)
            finally:
                if proc.poll() is None:
                    proc.kill()
            err.seek(0)
            self.assertEqual(proc.returncode, 0, err.read())
        return json.loads(out.strip().splitlines()[-1])

    def assertAppShows(self, seen, app, email):
        self.assertEqual(seen["url"], app.origin + "/protected/", seen)
        self.assertEqual(seen["json"]["app"], app.name, seen)
        self.assertEqual(seen["json"]["claims"]["email"], email, seen)

    def assertSignInPage(self, seen):
        self.assertTrue(seen["url"].startswith(SIGN_IN), seen)
        self.assertIn("password", seen["inputs"], seen)

    def test_sign_in_single_sign_on_and_front_channel_logout(self):
        password_user, _ = new_user("oidc-rp-pw")
        totp_user, _ = new_user("oidc-rp-totp")
        passkey_user, _ = new_user("oidc-rp-pk")
        # An address longer than a phone is wide, as a real one can be: the pages wrap it.
        code_user, _ = new_user("oidc-rp-code-with-a-long-address")
        bearer = {"Authorization": "Bearer " + account_token(totp_user, self.site)}
        secret = post("/auth/mfa/totp/setup", headers=bearer).json["secret"]
        self.assertEqual(post("/auth/mfa/totp/confirm", {"code": totp(secret, step_now() - 1)}, headers=bearer).status,
                         200)
        app1, app2 = self.apps
        config = {"svc": SVC, "apps": [app1.origin, app2.origin], "logout": app1.logout_url(),
                  "password": {"email": password_user, "password": PASSWORD},
                  "totp": {"email": totp_user, "password": PASSWORD},
                  "passkey": {"email": passkey_user, "accountToken": account_token(passkey_user, self.site)},
                  "emailCode": {"email": code_user}}
        with apache_rp.ApacheRP(self.apps) as rp:
            try:
                seen = self.run_browser(config, secret)
            except AssertionError:
                print(rp.log())
                raise
        s = seen["steps"]
        # Not svc's: the apps have no favicon (404), and mod_auth_openidc
        # answers its front-channel logout URI with X-Frame-Options: DENY
        # (it ends its session all the same).
        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")
                          and not e.startswith(tuple("Refused to display '%s/'" % app.origin for app in self.apps))],
                         [], seen["consoleErrors"])

        # (a) the password: app 1 sends the browser to svc's page, and back.
        self.assertSignInPage(s["aSignInPage"])
        self.assertTrue(s["aSignInPage"]["hops"][0].startswith(app1.origin), s["aSignInPage"])
        self.assertAppShows(s["aBack"], app1, password_user)
        self.assertEqual(s["aBack"]["json"]["remote_user"], s["aBack"]["json"]["claims"]["sub"])
        # Single sign-on: app 2 through svc's authorize, without any page of svc's.
        self.assertAppShows(s["aApp2"], app2, password_user)
        self.assertTrue(any(u.startswith(self.issuer + "/authorize?") for u in s["aApp2"]["hops"]), s["aApp2"])
        self.assertFalse([u for u in s["aApp2"]["hops"] if u.startswith(SVC + "/auth/oidc/")], s["aApp2"])

        # The logout: app 1, svc's end-session page, app 1's signed-out page;
        # the page's frames loaded both apps' front-channel logout URIs.
        hops = s["aLogout"]["hops"]
        self.assertTrue(any(u.startswith(self.issuer + "/end-session") for u in hops), hops)
        self.assertEqual(hops[-1], app1.logged_out_url, hops)
        frames = {}
        for url in s["aLogout"]["frameRequests"]:
            parts = urllib.parse.urlsplit(url)
            frames[parts.scheme + "://" + parts.netloc] = dict(urllib.parse.parse_qsl(parts.query))
        grants = dict(sql("SELECT g.client_id, g.session_id FROM svc_oauth_grants g JOIN svc_sessions s"
                          " ON s.id = g.session_id JOIN svc_users u ON u.id = s.user_id"
                          " WHERE u.user_email = %s" % q(password_user)))
        for app in (app1, app2):
            self.assertEqual(frames.get(app.origin), {"logout": "get", "iss": self.issuer,
                                                      "sid": grants[app.client_id]}, frames)
        # Both apps ask for a sign-in again.
        self.assertSignInPage(s["aApp1After"])
        self.assertSignInPage(s["aApp2After"])

        # (b) the password and the TOTP code.
        self.assertIn("code", s["bSecond"]["inputs"], s["bSecond"])
        self.assertAppShows(s["bBack"], app1, totp_user)

        # (c) a passkey through the hosted page's button.
        self.assertEqual(s["cRegister"]["status"], "Success", s["cRegister"])
        self.assertSignInPage(s["cSignInPage"])
        self.assertAppShows(s["cBack"], app1, passkey_user)
        self.assertAppShows(s["cApp2"], app2, passkey_user)

        # (d) a code by e-mail at 390 px: the link, the address, the code; no
        # page of svc's wider than the screen.
        self.assertSignInPage(s["dSignInPage"])
        self.assertTrue(s["dAddress"]["url"].startswith(SVC + "/auth/oidc/email-code?request="), s["dAddress"])
        self.assertEqual(s["dCodeForm"]["url"], SVC + "/auth/oidc/email-code", s["dCodeForm"])
        self.assertIn("code", s["dCodeForm"]["inputs"], s["dCodeForm"])
        self.assertEqual(s["dCodeForm"]["alert"], "", s["dCodeForm"])
        for name in ("dSignInPage", "dAddress", "dCodeForm"):
            self.assertEqual((s[name]["width"], s[name]["overflow"]), (390, False), name)
        self.assertAppShows(s["dBack"], app1, code_user)


if __name__ == "__main__":
    runner.main()

"""The account centre (/account/, web/account/index.html; issue 38) in
Chromium (account_page_browser.js, puppeteer-core, a virtual
authenticator): sign in with the keyboard on a page that names its site,
end another session, change the password, turn TOTP on and off, add a
passkey, rename it, sign out and in again with it, remove it, download the
data (the file Chromium saves is the export), then delete the account at
390 px.
MariaDB then holds no row of the user, and the audit row remains. The page
is served with the strict policy of the ready pages (plus blob: images);
the old enrolment page /account/security redirects here.

Screenshots: $SVC_BIN_DIR/test-output/account-page/*.png (copies at 1280
and 390 px are committed in docs/screenshots/).
"""

import json
import os
import subprocess

import svc_stack
from svc_stack import ApiTest, HTTP_PORT, admin, post, sql_value
from test_email_identity import create_user
from test_mfa import settle
from page_checks import assert_strict_page

BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "account_page_browser.js")
OUT_DIR = os.path.join(os.environ.get("SVC_BIN_DIR") or "build", "test-output", "account-page")
ORIGIN = "http://localhost:%d" % HTTP_PORT
PASSWORD = "Engine@1843"
NEW_PASSWORD = "Centre@Pass2027"
SITE_NAME = "Account centre"


class AccountPageTest(ApiTest):
    def test_page_is_served_with_the_strict_policy(self):
        page = assert_strict_page(self, "/account/", ("account.js", "account.css", "reset.css",
                                                      "form.js", "passkeys.js", "devices.js"), ("img-src 'self' blob:",))
        self.assertEqual(page.headers.get("cache-control"), "no-store")
        self.assertEqual(svc_stack.request("POST", "/account/").status, 403)
        redirect = svc_stack.request("GET", "/account/?token=abc")
        self.assertEqual((redirect.status, redirect.headers.get("location")), (303, "/account/"))

    def test_the_old_enrolment_page_redirects_to_the_centre(self):
        # /account/security was the second factor's enrolment page; the centre
        # does all it did (test_account_page_signin.py), so its links land there.
        for path, location in (("/account/security", "/account/"), ("/account/security?site=1", "/account/?site=1"),
                               ("/account/security?site=1&token=abc", "/account/"),
                               ("/account/security?token=abc", "/account/")):
            for method in ("GET", "HEAD"):
                reply = svc_stack.request(method, path)
                self.assertEqual((reply.status, reply.headers.get("location")), (301, location), (method, path))
        self.assertEqual(svc_stack.request("GET", "/account/?site=1").status, 200)
        for gone in ("/account/security.js", "/account/security.css", "/account/security.html"):
            self.assertEqual(svc_stack.request("GET", gone).status, 404, gone)

    def test_a_user_manages_and_deletes_the_account_in_the_browser(self):
        out = admin("site", "create", "--user-pool", "default", "--name", SITE_NAME, "--domain", "centre.example",
                    "--email-from", "Centre <no-reply@centre.example>", "--rp-id", "localhost",
                    "--origins", ORIGIN).stdout
        site = int(out.strip().splitlines()[-1])
        # Issue 41: NEW_PASSWORD scores 2 for this user (the e-mail's "centre"
        # counts against it), Password1! 0.
        admin("site", "set", "--site", str(site), "--min-password-score", "2")
        email, uid = create_user("centre", "--verified")
        other = post("/auth/login", {"email": email, "password": PASSWORD, "appID": site})
        self.assertReply(other, 200)  # a second session, which the page ends
        settle()
        page = "%s/account/?site=%d" % (ORIGIN, site)
        run = subprocess.run(["node", BROWSER_SCRIPT, page, OUT_DIR, email, PASSWORD, NEW_PASSWORD],
                             capture_output=True, text=True, timeout=240,
                             env=dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1"))
        self.assertEqual(run.returncode, 0, run.stderr)
        seen = json.loads(run.stdout.strip().splitlines()[-1])
        states = seen["states"]
        self.assertEqual(states["loaded"]["site"], SITE_NAME)
        self.assertEqual(len(states["signedIn"]["sessions"]), 2, states["signedIn"])
        self.assertEqual(states["guessable"]["status"][1], "The new password is too weak. It needs: hard enough to "
                                                          "guess (not a common word, name or pattern).")
        self.assertEqual(sum("This device" in s for s in states["signedIn"]["sessions"]), 1)
        self.assertTrue(states["totpOn"]["tfaState"].startswith("On"), states["totpOn"])
        self.assertEqual(states["totpOn"]["codes"], 10)
        self.assertTrue(states["totpOff"]["tfaState"].startswith("Off"), states["totpOff"])
        self.assertTrue(any("Test laptop" in p for p in states["passkeyAdded"]["passkeys"]))
        self.assertEqual(seen["renameFocus"], "pk-rename-name")
        self.assertEqual([p.split(",")[0] for p in states["passkeyRenamed"]["passkeys"]], ["Work laptop"])
        self.assertIn("POST %s/auth/passkey/rename" % ORIGIN, seen["requests"])
        self.assertTrue(states["passkeySignIn"]["sessions"], states["passkeySignIn"])
        self.assertIn("POST %s/auth/passkey/login" % ORIGIN, seen["requests"])  # signed in by the passkey
        self.assertEqual(seen["exported"]["account"]["profile"]["email"], email)
        # The file Chromium saved is the export's account object.
        self.assertEqual(seen["downloadedFile"], seen["exported"]["account"])
        self.assertTrue(states["phone"]["labels"])
        self.assertFalse(states["phone"]["overflow"], states["phone"])
        self.assertTrue(states["deleted"]["deleted"], states["deleted"])
        self.assertEqual(states["deleted"]["storage"], 0)
        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])
        self.assertEqual(seen["cookies"], 0)
        self.assertTrue(all(r.split(" ", 1)[1].startswith(ORIGIN + "/") or r.split(" ", 1)[1].startswith("blob:")
                            for r in seen["requests"]), seen["requests"])
        # The other session was ended first, then everything went with the account.
        for table in ("svc_users", "svc_sessions", "svc_passkeys", "svc_mfa_factors", "svc_mfa_recovery_codes"):
            column = "id" if table == "svc_users" else "user_id"
            self.assertEqual(sql_value("SELECT COUNT(*) FROM %s WHERE %s = %d" % (table, column, uid)), "0", table)
        self.assertGreater(int(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE event = 'account_deleted'"
                                         " AND site_id = %d AND user_id IS NULL AND detail LIKE 'by user, user %%'"
                                         % site)), 0)
        for path in seen["screenshots"]:
            self.assertGreater(os.path.getsize(path), 1000, path)


if __name__ == "__main__":
    svc_stack.main()

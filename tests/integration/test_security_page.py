"""The second factor's enrolment page (/account/security, web/account/) end
to end: nginx serves it with the reset page's strict policy (plus blob:
images for the QR code) and the same query and method rules; headless
Chromium (Debian's, driven by security_page_browser.js with puppeteer-core)
signs in, starts enrolment, screenshots the QR image, which zbarimg
(zbar-tools) decodes back to the setup reply's otpauth URL, confirms a wrong
code (the error beside the field) and then oathtool's code from the decoded
secret, and shows ten recovery codes. At 375 px it signs in again, the
account now asks for the second factor, a recovery code passes it, and setup
says the factor is already on. No access, refresh or mfa token appears in a
request URL, the address bar, either storage or a cookie; nothing overflows
at 1280 or 375 px. Afterwards the API agrees: a password login needs the
second factor, the recovery code the page spent is refused, another works.

The page's address names the site (`?site=1`, issue 36 item 15): the page
shows the site's name (GET /auth/site), asks for no site number and signs in
to that site. Opened without a site (the phone part) or with an unknown one,
it shows no name and signs in without a site, as before.

Screenshots of each state: $SVC_BIN_DIR/test-output/security-page/*.png.
"""

import json
import os
import re
import subprocess

from svc_stack import ApiTest, HTTP_PORT, admin, post, request, unique_email
from page_checks import assert_strict_page
import runner

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "security_page_browser.js")
OUT_DIR = os.path.join(os.environ.get("SVC_BIN_DIR") or os.path.join(ROOT, "build"), "test-output", "security-page")
PAGE = "http://127.0.0.1:%d/account/security" % HTTP_PORT
SITE_PAGE = PAGE + "?site=1"
UNKNOWN_SITE_PAGE = PAGE + "?site=987654321"
PASSWORD = "Enrol@2026page"
APP_ID = 1


class SecurityPageServedTest(ApiTest):
    def test_page_and_its_files_have_a_strict_policy(self):
        page = assert_strict_page(self, "/account/security", ("security.js", "security.css", "reset.css", "form.js"),
                                  ("img-src 'self' blob:",))
        # blob: for the QR code's object URL; never data:, which injected markup could use too.
        self.assertNotIn("data:", page.headers["content-security-policy"])
        self.assertEqual(page.headers.get("cache-control"), "no-store")
        reply = request("GET", "/account/security?x=1")
        self.assertEqual((reply.status, reply.headers.get("location")), (303, "/account/security"))


class SecurityPageBrowserTest(ApiTest):
    def test_enrol_in_chromium(self):
        email = unique_email("securitypage")
        # A proven address (issue 36: enrolment needs one), as a verification link would leave it.
        admin("user", "create", "--email", email, "--verified", stdin=PASSWORD + "\n")
        run = subprocess.run(["node", BROWSER_SCRIPT, SITE_PAGE, PAGE, UNKNOWN_SITE_PAGE, OUT_DIR, email, PASSWORD],
                             capture_output=True, text=True, timeout=240,
                             env=dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1"))
        self.assertEqual(run.returncode, 0, run.stderr)
        seen = json.loads(run.stdout)
        s = seen["states"]

        # Chromium logs every non-2xx fetch (the wrong code's 400, the 401 of
        # the second-factor step, setup's 409, /favicon.ico's 404); anything
        # else (a CSP refusal, a script error) fails.
        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])
        self.assertTrue(all(r.split(" ", 1)[1].startswith(("http://127.0.0.1:%d/" % HTTP_PORT, "blob:"))
                            for r in seen["requests"]), seen["requests"])

        initial = s["initial"]
        self.assertEqual(initial["sections"], ["signin-form"])
        self.assertEqual(initial["focused"], "email")
        self.assertEqual(initial["labels"], [True, True])
        # The demo site's name, and no field asking for its number.
        self.assertEqual(initial["site"], "Demo")
        self.assertFalse(initial["appIdField"])
        for jargon in ("appID", "Site number"):
            self.assertNotIn(jargon, initial["bodyText"])
        self.assertEqual(s["signedIn"]["site"], "Demo")
        # The page with the site signed in to it; without one, to no site.
        self.assertEqual(seen["loginApps"], ["1", None])
        self.assertEqual(s["reloaded"]["site"], "")
        self.assertFalse(s["reloaded"]["appIdField"])
        # A site the server does not know: no name, the page still signs in.
        unknown = s["unknownSite"]
        self.assertEqual((unknown["sections"], unknown["site"], unknown["url"]), (["signin-form"], "", PAGE))
        self.assertEqual(s["signedIn"]["sections"], ["enrol"])
        self.assertEqual(s["scan"]["sections"], ["scan-form"])
        self.assertTrue(seen["qrSrc"].startswith("blob:http://127.0.0.1:%d/" % HTTP_PORT), seen["qrSrc"])

        # The QR code on screen is the setup reply's otpauth URL.
        self.assertTrue(seen["decoded"].startswith("otpauth://totp/"), seen["decoded"])
        self.assertEqual(seen["decoded"], seen["otpauthUrl"])
        secret = re.search(r"[?&]secret=([A-Z2-7]+)", seen["decoded"]).group(1)
        self.assertEqual(seen["shownSecret"].replace(" ", ""), secret)

        self.assertEqual(s["wrongCode"]["sections"], ["scan-form"])
        self.assertEqual(s["wrongCode"]["confirmError"],
                         "That code is not right. Wait for the next code of your app and type it.")
        self.assertEqual(s["wrongCode"]["focused"], "confirm-code")

        codes = s["codes"]["codes"]
        self.assertEqual(s["codes"]["sections"], ["codes"])
        self.assertEqual(s["codes"]["focused"], "codes-title")
        self.assertEqual(len(codes), 10)
        self.assertEqual(len(set(codes)), 10)
        for code in codes:
            self.assertRegex(code, r"^[a-z2-7]{5}-[a-z2-7]{5}$")
        self.assertIsNone(seen["qrSrcAfter"], "the QR code stays on the page after enrolment")
        self.assertEqual(s["codesPhone"]["sections"], ["codes"])
        self.assertEqual(s["codesPhone"]["codes"], codes)

        # A reload forgets the sign-in; the account now has a second factor.
        self.assertEqual(s["reloaded"]["sections"], ["signin-form"])
        self.assertEqual(s["mfaStep"]["sections"], ["mfa-form"])
        self.assertEqual(s["mfaStep"]["focused"], "mfa-code")
        self.assertEqual(s["alreadyOn"]["sections"], ["enrol"])
        self.assertEqual(s["alreadyOn"]["general"],
                         "Two-factor authentication is already on for this account. To change the app, turn it off first.")

        # No token anywhere but the page's memory.
        tokens = [t for t in seen["tokens"] if t]
        self.assertGreaterEqual(len(tokens), 5)  # two logins' tokens and one mfa_token
        for name, state in s.items():
            self.assertEqual(state["localStorage"], {}, name)
            self.assertEqual(state["sessionStorage"], {}, name)
            self.assertEqual(state["cookie"], "", name)
            wide = name in ("initial", "signedIn", "scan", "wrongCode", "codes", "codesPhone")
            self.assertEqual(state["url"], SITE_PAGE if wide else PAGE, name)
        self.assertEqual(seen["cookies"], 0)
        for token in tokens:
            self.assertEqual([r for r in seen["requests"] if token in r], [])

        for name in ("initial", "signedIn", "scan", "codes"):
            self.assertEqual(s[name]["innerWidth"], 1280, name)
            self.assertFalse(s[name]["overflow"], s[name])
        for name in ("codesPhone", "reloaded", "mfaStep", "alreadyOn"):
            self.assertEqual(s[name]["innerWidth"], 375, name)
            self.assertFalse(s[name]["overflow"], s[name])
        self.assertEqual(len(seen["screenshots"]), 7)
        for path in seen["screenshots"]:
            self.assertGreater(os.path.getsize(path), 1000, path)

        # The server agrees: the password alone no longer signs in, the
        # recovery code the page spent is spent, another one works.
        login = post("/auth/login", {"email": email, "password": PASSWORD, "appID": APP_ID})
        self.assertEqual((login.status, login.json["message"]), (401, "Second factor required"), login)
        spent = post("/auth/mfa/verify", {"mfa_token": login.json["mfa_token"], "recovery_code": codes[0]})
        self.assertExact(spent, 401, {"status": "Failed", "message": "Invalid code"})
        self.assertTokenReply(post("/auth/mfa/verify", {"mfa_token": login.json["mfa_token"],
                                                        "recovery_code": codes[1]}))


if __name__ == "__main__":
    runner.main()

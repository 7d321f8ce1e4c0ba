"""The account centre's sign-in and two-factor enrolment (/account/,
web/account/; issue 38) in headless Chromium (account_signin_browser.js,
puppeteer-core). It carries over what the old enrolment page's test
(/account/security, now a redirect to the centre) checked.

A user signs in with a code mailed through svc-sender to the test's SMTP
sink (the test reads the mail and types nothing the user would not see),
on a page whose address names the site: the site's name is shown, no site
number is asked for. Then TOTP on: the QR image on screen, decoded by
zbarimg (zbar-tools), is the setup reply's otpauth URL, the shown key its
secret; a wrong code is answered beside the field, oathtool's code turns
the factor on and ten recovery codes are shown, the QR image is gone. At
375 px, a fresh load without a site: the password leads to the second step,
which a recovery code passes, and the centre says TOTP is on. Opened with a
site the server does not know, the page shows no name and drops the site.
No access, refresh, account or mfa token appears in a request URL, the
address bar, either storage or a cookie; nothing overflows at 1280 or 375
px; every input has a label. Afterwards the API agrees: a password login
needs the second factor, the recovery code the page spent is refused,
another works.

Screenshots: $SVC_BIN_DIR/test-output/account-signin/*.png.
"""

import json
import os
import re
import subprocess
import tempfile

import svc_stack
from svc_stack import ApiTest, HTTP_PORT, post
from test_email_identity import code_of, create_site, create_user, delivered
from test_mfa import settle
import runner

BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "account_signin_browser.js")
OUT_DIR = os.path.join(os.environ.get("SVC_BIN_DIR") or "build", "test-output", "account-signin")
PAGE = "http://127.0.0.1:%d/account/" % HTTP_PORT
PASSWORD = "Engine@1843"  # create_user's
SITE_NAME = "Centre sign-in"


class AccountPageSignInTest(ApiTest):
    def run_browser(self, site, email):
        """Runs the driver, answering its request for the e-mailed code;
        returns what it printed last."""
        args = ["node", BROWSER_SCRIPT, "%s?site=%d" % (PAGE, site), PAGE, PAGE + "?site=987654321", OUT_DIR,
                email, PASSWORD]
        with tempfile.TemporaryFile("w+") as err:
            proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True,
                                    env=dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1"))
            try:
                asked = proc.stdout.readline()
                self.assertEqual(json.loads(asked or "null"), {"need": "code"}, asked)
                out, _ = proc.communicate(code_of(delivered(email)) + "\n", timeout=240)
                last = out.strip().splitlines()
            finally:
                if proc.poll() is None:
                    proc.kill()
            err.seek(0)
            self.assertEqual(proc.returncode, 0, err.read())
        return json.loads(last[-1])

    def test_sign_in_with_an_emailed_code_and_enrol_totp(self):
        site = create_site(SITE_NAME)
        email, _ = create_user("centre-code", "--verified")
        settle()  # the enrolment's codes stay within one TOTP window
        seen = self.run_browser(site, email)
        s = seen["states"]

        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])
        self.assertTrue(all(r.split(" ", 1)[1].startswith(("http://127.0.0.1:%d/" % HTTP_PORT, "blob:"))
                            for r in seen["requests"]), seen["requests"])

        initial = s["initial"]
        self.assertEqual((initial["site"], initial["steps"], initial["focused"]), (SITE_NAME, ["signin"], "email"))
        self.assertFalse(initial["appIdField"])
        for jargon in ("appID", "Site number"):
            self.assertNotIn(jargon, initial["bodyText"])
        self.assertTrue(all(initial["labels"]), initial)
        self.assertEqual((s["codeAsked"]["steps"], s["codeAsked"]["focused"]), (["code-form"], "email-code"))

        # Signed in by the mailed code, to the site of the address.
        self.assertEqual((s["signedIn"]["steps"], s["signedIn"]["who"]), (["centre"], email))
        self.assertEqual(seen["signIns"][:2], [["email-code", str(site)], ["email-code/verify", str(site)]])
        self.assertTrue(s["signedIn"]["tfaState"].startswith("Off"), s["signedIn"])

        # The QR code on screen is the setup reply's otpauth URL.
        self.assertTrue(seen["qrSrc"].startswith("blob:http://127.0.0.1:%d/" % HTTP_PORT), seen["qrSrc"])
        self.assertTrue(seen["decoded"].startswith("otpauth://totp/"), seen["decoded"])
        self.assertEqual(seen["decoded"], seen["otpauthUrl"])
        secret = re.search(r"[?&]secret=([A-Z2-7]+)", seen["decoded"]).group(1)
        self.assertEqual(seen["shownSecret"].replace(" ", ""), secret)

        self.assertEqual(s["wrongCode"]["confirmError"], "That code is not right. Try the newest code of your app.")
        self.assertEqual(s["wrongCode"]["focused"], "tfa-confirm-code")
        codes = s["codes"]["codes"]
        self.assertEqual(len(set(codes)), 10)
        for code in codes:
            self.assertRegex(code, r"^[a-z2-7]{5}-[a-z2-7]{5}$")
        self.assertTrue(s["codes"]["tfaState"].startswith("On"), s["codes"])
        self.assertIsNone(seen["qrSrcAfter"], "the QR code stays on the page after enrolment")
        self.assertEqual(s["codesPhone"]["codes"], codes)

        # A fresh load without a site: no name, the password then the second step.
        self.assertEqual((s["reloaded"]["steps"], s["reloaded"]["site"]), (["signin"], ""))
        self.assertEqual((s["mfaStep"]["steps"], s["mfaStep"]["focused"]), (["mfa-form"], "mfa-code"))
        self.assertEqual(seen["signIns"][2:], [["login", None]])
        self.assertEqual(s["phoneCentre"]["steps"], ["centre"])
        self.assertTrue(s["phoneCentre"]["tfaState"].startswith("On"), s["phoneCentre"])
        # A site the server does not know: no name, and the address drops it.
        unknown = s["unknownSite"]
        self.assertEqual((unknown["steps"], unknown["site"], unknown["url"]), (["signin"], "", PAGE))

        # No token anywhere but the page's memory.
        tokens = [t for t in seen["tokens"] if t]
        self.assertGreaterEqual(len(tokens), 7)  # two sign-ins' three tokens and one mfa_token
        for name, state in s.items():
            self.assertEqual((state["localStorage"], state["sessionStorage"], state["cookie"]), ({}, {}, ""), name)
            self.assertTrue(all(state["labels"]), name)
            for token in tokens:
                self.assertNotIn(token, state["url"], name)
        self.assertEqual(seen["cookies"], 0)
        for token in tokens:
            self.assertEqual([r for r in seen["requests"] if token in r], [])
        for name in ("initial", "signedIn", "scan", "codes"):
            self.assertEqual(s[name]["innerWidth"], 1280, name)
            self.assertFalse(s[name]["overflow"], name)
        for name in ("codesPhone", "reloaded", "mfaStep", "phoneCentre"):
            self.assertEqual(s[name]["innerWidth"], 375, name)
            self.assertFalse(s[name]["overflow"], name)
        for path in seen["screenshots"]:
            self.assertGreater(os.path.getsize(path), 1000, path)

        # The server agrees: the password alone no longer signs in, the
        # recovery code the page spent is spent, another one works.
        login = post("/auth/login", {"email": email, "password": PASSWORD, "appID": site})
        self.assertEqual((login.status, login.json["message"]), (401, "Second factor required"), login)
        spent = post("/auth/mfa/verify", {"mfa_token": login.json["mfa_token"], "recovery_code": codes[0]})
        self.assertExact(spent, 401, {"status": "Failed", "message": "Invalid code"})
        self.assertTokenReply(post("/auth/mfa/verify", {"mfa_token": login.json["mfa_token"],
                                                        "recovery_code": codes[1]}))


if __name__ == "__main__":
    runner.main()

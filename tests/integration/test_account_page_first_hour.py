"""The account centre (/account/) as a newcomer met it (issue 48), in
Chromium (account_first_hour_browser.js, puppeteer-core):

- a site without passkeys shows no passkey button or section and never the
  API's "Passkeys are not configured for this site: rp_id is not set"; no
  passkey route is called. A site with a relying party offers them
  (GET /auth/site says `passkeys`);
- "Forgot your password?" on the sign-in asks POST /auth/request-pass for
  the site, says so (with "if": the reply is the same for any address),
  and the reset mail arrives; "Back to sign-in" returns;
- the code step has "Send a new code" (inside the API's one-minute resend
  rule the page says to wait and sends nothing; a minute later it asks
  again) and "Back to sign-in", which keeps the address typed;
- sessions name the device ("Safari on iPhone", "Chrome on Linux") and say
  when ("just now"), never the raw user agent; devices.js's names and times
  for a table of user agents and ages.

Screenshots: $SVC_BIN_DIR/test-output/account-first-hour/*.png.
"""

import json
import os
import subprocess

import svc_stack
from svc_stack import ApiTest, HTTP_PORT, admin, post, q, sql_value
from test_email_identity import create_user
import runner

BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "account_first_hour_browser.js")
OUT_DIR = os.path.join(os.environ.get("SVC_BIN_DIR") or "build", "test-output", "account-first-hour")
ORIGIN = "http://localhost:%d" % HTTP_PORT
PASSWORD = "Engine@1843"  # create_user's
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.4 Mobile/15E148 Safari/604.1")
NAMES = ["Safari on iPhone", "Safari on Mac", "Edge on Windows", "Firefox on Windows", "Chrome on Android",
         "Chrome on iPad", "Chrome on Linux", "curl", "Python-urllib", "Unknown device", "Unknown device"]
AGES = ["just now", "just now", "a minute ago", "3 minutes ago", "an hour ago", "2 hours ago", "7 hours ago",
        "yesterday", "4 days ago", "on November 16, 2026"]


def new_site(name, *options):
    out = admin("site", "create", "--user-pool", "default", "--name", name, "--domain", "first-hour-centre.example",
                "--email-from", "Centre <no-reply@first-hour-centre.example>", *options).stdout
    return int(out.strip().splitlines()[-1])


class AccountPageFirstHourTest(ApiTest):
    def test_a_newcomer_forgets_asks_again_and_reads_the_sessions(self):
        svc_stack.require_sender(self)
        plain = new_site("First-hour centre")
        with_passkeys = new_site("First-hour centre, WebAuthn", "--rp-id", "localhost", "--origins", ORIGIN)
        email, _ = create_user("first-hour-centre", "--verified")
        # Another session, from an iPhone: the page names it.
        other = post("/auth/login", {"email": email, "password": PASSWORD, "appID": plain},
                     headers={"User-Agent": IPHONE})
        self.assertReply(other, 200)

        run = subprocess.run(["node", BROWSER_SCRIPT, "%s/account/?site=%d" % (ORIGIN, plain),
                              "%s/account/?site=%d" % (ORIGIN, with_passkeys), OUT_DIR, email, PASSWORD],
                             capture_output=True, text=True, timeout=240,
                             env=dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1"))
        self.assertEqual(run.returncode, 0, run.stderr)
        seen = json.loads(run.stdout.strip().splitlines()[-1])
        s = seen["states"]
        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])
        self.assertTrue(all(r.split(" ", 1)[1].startswith(ORIGIN + "/") for r in seen["requests"]), seen["requests"])

        # No passkeys on a site without them: nothing offered, nothing asked.
        self.assertEqual(s["loaded"]["site"], "First-hour centre")
        self.assertEqual(s["loaded"]["visible"], ["forgot"])
        self.assertNotIn("passkey", s["loaded"]["bodyText"].lower())
        self.assertNotIn("pk-section", s["signedIn"]["visible"])
        for name, state in s.items():
            self.assertNotIn("rp_id", state["bodyText"], name)
            self.assertNotIn("not configured", state["bodyText"], name)
            self.assertTrue(state["labels"], name)
        self.assertEqual([r for r in seen["requests"] if "/auth/passkey/" in r], [])
        self.assertIn("signin-passkey", s["passkeySite"]["visible"])

        # Forgot the password: the link is asked for this site and mailed.
        self.assertEqual((s["forgot"]["steps"], s["forgot"]["focused"], s["forgot"]["forgotEmail"]),
                         (["forgot-form"], "forgot-email", email))
        self.assertEqual(s["forgotSent"]["status"][0], "If %s has an account here, we sent it a link to choose a new "
                                                      "password. Open it on this device or another." % email)
        self.assertEqual(sum(r == "POST %s/auth/request-pass" % ORIGIN for r in seen["requests"]), 1)
        row = sql_value("SELECT MAX(id) FROM svc_notification_log WHERE recipient = %s AND event = 'password-reset'"
                        " AND site_id = %d" % (q(email), plain))
        self.assertIsNotNone(row)
        self.assertIn("/account/reset?site=%d#token=" % plain,
                      svc_stack.mail_html(svc_stack.wait_for_outbox_mail(int(row))))
        self.assertEqual((s["backFromForgot"]["steps"], s["backFromForgot"]["focused"]), (["signin"], "email"))

        # The code step: send again (too soon, then a minute later), back.
        self.assertEqual(s["codeAsked"]["steps"], ["code-form"])
        self.assertTrue({"code-again", "code-back"} <= set(s["codeAsked"]["visible"]), s["codeAsked"])
        self.assertIn("You can ask for a new code after a minute.", s["codeTooSoon"]["status"][1])
        self.assertEqual(s["codeAgain"]["status"][1], "A new code is on its way to %s. Only the newest code works."
                         % email)
        self.assertEqual(sum(r == "POST %s/auth/email-code" % ORIGIN for r in seen["requests"]), 2)
        self.assertEqual((s["backFromCode"]["steps"], s["backFromCode"]["focused"], s["backFromCode"]["email"]),
                         (["signin"], "email", email))

        # Sessions in words: the iPhone and this browser, just now.
        sessions = s["signedIn"]["sessions"]
        self.assertEqual(len(sessions), 2, sessions)
        self.assertEqual(sorted(x.split(" — ")[0] for x in sessions), ["Chrome on Linux", "Safari on iPhone"])
        for line in sessions:
            self.assertRegex(line, r"signed in (just now|a minute ago|\d minutes ago), last active ")
            for raw in ("Mozilla", "AppleWebKit", "HeadlessChrome", "1970"):
                self.assertNotIn(raw, line)
        self.assertEqual(seen["names"], NAMES)
        self.assertEqual(seen["ages"], AGES)

        for name in ("loaded", "signedIn"):
            self.assertEqual(s[name]["innerWidth"], 1280, name)
            self.assertFalse(s[name]["overflow"], name)
        self.assertEqual(s["phoneForgot"]["innerWidth"], 390)
        self.assertFalse(s["phoneForgot"]["overflow"])
        self.assertEqual(seen["cookies"], 0)
        for path in seen["screenshots"]:
            self.assertGreater(os.path.getsize(path), 1000, path)


if __name__ == "__main__":
    runner.main()

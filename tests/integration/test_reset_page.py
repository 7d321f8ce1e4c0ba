"""The ready reset page (/account/reset, web/account/) end to end:
request-pass for a site without reset_url -> the link in the mail points at
the page with the token in the fragment -> headless Chromium (Debian's, driven
by reset_page_browser.js with puppeteer-core) types a weak password (the rule
shows what is missing), a mismatch, a strong one, submits (success state),
then opens the spent link on a 375 px phone screen (the server's error) ->
the new password logs in.

Screenshots of each state: $SVC_BIN_DIR/test-output/reset-page/*.png.
"""

import html
import json
import os
import re
import subprocess

import svc_stack
from svc_stack import ApiTest, HTTP_PORT, admin, post, request, unique_email, wait_for_mail
import runner

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reset_page_browser.js")
OUT_DIR = os.path.join(os.environ.get("SVC_BIN_DIR") or os.path.join(ROOT, "build"), "test-output", "reset-page")
PAGE = "http://127.0.0.1:%d/account/reset" % HTTP_PORT
HREF = re.compile(r'href="([^"]+)"')


def create_site_without_reset_url():
    out = admin("site", "create", "--name", "Reset page test", "--domain", "reset-page.example",
                "--email-from", "Reset <no-reply@reset-page.example>").stdout
    return int(next(line for line in out.splitlines() if re.fullmatch(r"\d+", line.strip())))


def mail_body_html(msg):
    part = msg.get_body(preferencelist=("html",))
    return part.get_content() if part else ""


class ResetPageServedTest(ApiTest):
    def test_page_and_its_files_have_a_strict_policy(self):
        page = request("GET", "/account/reset")
        self.assertEqual(page.status, 200, page)
        self.assertTrue(page.headers["content-type"].startswith("text/html"), page.headers)
        csp = page.headers.get("content-security-policy", "")
        for directive in ("default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
                          "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"):
            self.assertIn(directive, csp)
        self.assertNotIn("unsafe", csp)
        self.assertEqual(page.headers.get("referrer-policy"), "no-referrer")
        self.assertEqual(page.headers.get("x-content-type-options"), "nosniff")
        self.assertRegex(page.headers.get("x-request-id", ""), r"^[0-9a-f]{32}$")
        self.assertNotIn("set-cookie", page.headers)
        text = page.raw.decode()
        # No inline script or style, nothing from another origin.
        self.assertIsNone(re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), "inline script")
        self.assertNotIn("<style", text)
        self.assertNotIn(" style=", text)
        self.assertIsNone(re.search(r'(?:src|href)="(?:https?:)?//', text), "external asset")
        for name, kind in (("reset.js", "text/javascript"), ("reset.css", "text/css")):
            r = request("GET", "/account/" + name)
            self.assertEqual(r.status, 200, r)
            self.assertTrue(r.headers["content-type"].startswith(kind), r.headers)
        self.assertEqual(request("POST", "/account/reset").status, 403)


class ResetPageBrowserTest(ApiTest):
    def test_reset_in_chromium(self):
        site = create_site_without_reset_url()
        email = unique_email("resetpage")
        self.assertReply(post("/auth/sign-up", {"email": email, "password": "Engine@1843", "appID": site}), 200)
        before = svc_stack.mail_files()
        self.assertReply(post("/auth/request-pass", {"email": email, "appID": site}), 200)
        msg = wait_for_mail(lambda m: email in str(m["To"]), after=before)
        links = [html.unescape(h) for h in HREF.findall(mail_body_html(msg))]
        self.assertEqual(len(links), 1, links)
        link = links[0]
        # The server's ready page, the token in the fragment (never sent to a server).
        self.assertRegex(link, r"^" + re.escape(PAGE) + r"#token=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")

        strong = "Reset@2026page"
        run = subprocess.run(["node", BROWSER_SCRIPT, link, OUT_DIR, strong], capture_output=True, text=True,
                             timeout=180, env=dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1"))
        self.assertEqual(run.returncode, 0, run.stderr)
        seen = json.loads(run.stdout)
        s = seen["states"]

        # Chromium logs every non-2xx fetch (the spent token's 400, /favicon.ico's
        # 404); anything else (a CSP refusal, a script error) fails.
        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])
        self.assertTrue(all(r.split(" ", 1)[1].startswith("http://127.0.0.1:%d/" % HTTP_PORT)
                            for r in seen["requests"]), seen["requests"])
        self.assertEqual(seen["cookies"], 0)

        initial = s["initial"]
        self.assertTrue(initial["formVisible"])
        self.assertEqual(initial["url"], PAGE, "the token stays in the address bar")
        self.assertEqual(initial["focused"], "password")
        self.assertEqual(initial["labels"], [True, True])
        self.assertEqual(set(initial["rules"].values()), {"pending"})

        self.assertEqual(s["weak"]["rules"], {"minLength": "met", "hasUpperCase": "missing", "hasLowerCase": "met",
                                              "hasNumber": "missing", "hasSpecialChar": "missing"})
        self.assertEqual(s["weakSubmitted"]["passwordError"], "Password does not meet security requirements")
        self.assertEqual(s["weakSubmitted"]["passwordInvalid"], "true")
        self.assertEqual(s["weakSubmitted"]["focused"], "password")
        self.assertEqual(s["mismatch"]["confirmError"], "Passwords do not match")
        self.assertEqual(set(s["strong"]["rules"].values()), {"met"})

        done = s["done"]
        self.assertTrue(done["doneVisible"])
        self.assertFalse(done["formVisible"])
        self.assertEqual(done["focused"], "done-title")

        self.assertEqual(s["spent"]["general"],
                         "Reset password token has expired or is invalid. Ask for a new reset e-mail and use its link.")
        self.assertTrue(s["spent"]["formVisible"])

        for name in ("initial", "done"):
            self.assertEqual(s[name]["innerWidth"], 1280)
            self.assertFalse(s[name]["overflow"], s[name])
        for name in ("phone", "spent"):
            self.assertEqual(s[name]["innerWidth"], 375)
            self.assertFalse(s[name]["overflow"], s[name])
        self.assertEqual(len(seen["screenshots"]), 7)
        for path in seen["screenshots"]:
            self.assertGreater(os.path.getsize(path), 1000, path)

        # The password the browser set logs in; the old one does not.
        self.assertTokenReply(post("/auth/login", {"email": email, "password": strong}))
        self.assertEqual(post("/auth/login", {"email": email, "password": "Engine@1843"}).status, 401)


if __name__ == "__main__":
    runner.main()

"""The address verification page (/account/verify, web/account/) against a
mail scanner (issue 26): sign-up on a site with `site set --verify-email`
-> the link read from the delivered mail carries the token after '#' only
-> headless Chromium (Debian's, driven by button_page_browser.js with
puppeteer-core) loads the page, whose script runs, and a plain GET and HEAD
with curl fetch the link: the address stays unverified and the password
login still gets 403 -> the browser presses the button -> the page says the
address is confirmed, the row has email_verified_at, and the login succeeds
with email_verified true in the access token. The page has the reset page's
strict policy and no external assets. The link names its site
(`?site=N`, issue 36 item 15) and the page shows the site's name.

Screenshots: $SVC_BIN_DIR/test-output/verify-page/*.png.
"""

import json
import os
import re

import svc_stack
from svc_stack import ApiTest, HTTP_PORT, admin, b64url_decode, post, request, sql_value, unique_email
from page_checks import press_button_page
import runner

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT_DIR = os.path.join(os.environ.get("SVC_BIN_DIR") or os.path.join(ROOT, "build"), "test-output", "verify-page")
PAGE = "http://127.0.0.1:%d/account/verify" % HTTP_PORT
PASSWORD = "Engine@1843"
HREF = re.compile(r'href="([^"]+)"')
SITE_NAME = "Verify page"


def claims(jwt):
    return json.loads(b64url_decode(jwt.split(".")[1]))


class VerifyPageServedTest(ApiTest):
    def test_page_has_the_strict_policy_and_no_external_assets(self):
        page = request("GET", "/account/verify")
        self.assertEqual(page.status, 200, page)
        self.assertTrue(page.headers["content-type"].startswith("text/html"), page.headers)
        csp = page.headers.get("content-security-policy", "")
        for directive in ("default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"):
            self.assertIn(directive, csp)
        self.assertEqual(page.headers.get("referrer-policy"), "no-referrer")
        text = page.raw.decode()
        self.assertIsNone(re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), "inline script")
        self.assertIsNone(re.search(r'(?:src|href)="(?:https?:)?//', text), "external asset")
        script = request("GET", "/account/verify.js")
        self.assertEqual(script.status, 200, script)
        self.assertTrue(script.headers["content-type"].startswith("text/javascript"), script.headers)
        self.assertEqual(request("POST", "/account/verify").status, 403)
        redirect = request("GET", "/account/verify?token=abc")
        self.assertEqual((redirect.status, redirect.headers.get("location")), (303, "/account/verify"))


class VerifyPageBrowserTest(ApiTest):
    def test_loading_and_fetching_spend_nothing_the_button_does(self):
        out = admin("site", "create", "--user-pool", "default", "--name", SITE_NAME, "--domain", "verify-page.example",
                    "--email-from", "Verify <no-reply@verify-page.example>", "--verify-email").stdout
        site = int(out.strip().splitlines()[-1])
        email = unique_email("verifypage")
        signed = self.assertTokenReply(post("/auth/sign-up", {"email": email, "password": PASSWORD, "appID": site}))
        uid = int(claims(signed["access_token"])["sub"])
        msg = svc_stack.wait_for_outbox_mail(svc_stack.newest_outbox_id(email))
        links = [h.replace("&amp;", "&") for h in HREF.findall(svc_stack.mail_html(msg))]
        self.assertEqual(len(links), 1, links)
        link = links[0]
        site_page = "%s?site=%d" % (PAGE, site)
        self.assertRegex(link, r"^" + re.escape(site_page) + r"#token=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")

        def unverified():
            return sql_value("SELECT email_verified_at FROM svc_users WHERE id = %d" % uid) is None

        login = {"email": email, "password": PASSWORD, "appID": site}

        def spends_nothing(loaded):
            # The page loaded and its script ran, a scanner fetched the link:
            # nothing is spent.
            self.assertTrue(unverified())
            self.assertExact(post("/auth/login", login), 403, {"status": "Failed", "message": "Email not verified"})

        loaded, clicked = press_button_page(self, link, OUT_DIR, "verify-form",
                                            "http://127.0.0.1:%d/auth/verify-email" % HTTP_PORT,
                                            while_loaded=spends_nothing)
        # The site's name, from ?site=N (issue 36 item 15); the address keeps only the site.
        self.assertEqual(loaded["url"], site_page)
        self.assertEqual(loaded["site"], SITE_NAME)
        self.assertEqual(clicked["site"], SITE_NAME)
        self.assertFalse(unverified())
        session = self.assertTokenReply(post("/auth/login", login))
        self.assertIs(claims(session["access_token"])["email_verified"], True)

if __name__ == "__main__":
    runner.main()

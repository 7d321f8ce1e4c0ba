"""The ready reset page (/account/reset, web/account/) end to end:
request-pass for a site without reset_url -> the link in the mail points at
the page with the token in the fragment -> headless Chromium (Debian's, driven
by reset_page_browser.js with puppeteer-core) types a weak password (the rule
shows what is missing), a mismatch, a strong one, submits (success state),
then opens the spent link on a 375 px phone screen (the server's error) ->
the new password logs in. Before all that, the same token in the query string
(`?token=`, issue 22) is not honoured: nginx redirects to the bare page and
the page, even when served at that address, shows the link as incomplete.
Links to the ready page carry the token in the fragment also when a site's
reset_url names that page, and no nginx log line of /account/ holds a
query string other than the site's number.

The link names its site (`?site=N`, issue 36 item 15): the page shows the
site's name (GET /auth/site) and keeps `?site=N` in the address bar while the
token leaves it; a link without it (mailed before the change) still works,
without a name.

Screenshots of each state: $SVC_BIN_DIR/test-output/reset-page/*.png.
"""

import html
import json
import os
import re
import subprocess
import time
import uuid

import svc_stack
from svc_stack import ApiTest, HTTP_PORT, admin, post, request, unique_email, wait_for_mail
from page_checks import assert_strict_page
import runner

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reset_page_browser.js")
OUT_DIR = os.path.join(os.environ.get("SVC_BIN_DIR") or os.path.join(ROOT, "build"), "test-output", "reset-page")
PAGE = "http://127.0.0.1:%d/account/reset" % HTTP_PORT
HREF = re.compile(r'href="([^"]+)"')
INCOMPLETE = "This link is incomplete: open the link of your reset e-mail again, or ask for a new one."
ACCESS_LOG = os.path.join(svc_stack.STACK_DIR, "nginx-access.log")
ERROR_LOG = os.path.join(svc_stack.STACK_DIR, "nginx-error.log")
SITE_NAME = "Reset page test"
# The one query an /account/ page may carry (and the log may hold): its site.
SITE_QUERY = re.compile(r"/account/(?:reset|verify|security|)\?site=[0-9]+(?=[\s\"])")


def account_queries(log_text):
    """Access log lines of /account/ that hold a query other than ?site=N."""
    return [line for line in log_text.splitlines() if "/account/" in line and "?" in SITE_QUERY.sub("", line)]


def read_text(path, offset=0):
    """The file's text from byte `offset` on (the stack's logs outlive a run)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        f.seek(offset)
        return f.read()


def log_offsets():
    return {path: os.path.getsize(path) if os.path.exists(path) else 0 for path in (ACCESS_LOG, ERROR_LOG)}


def logged_marker(marker, timeout=10):
    """GETs the page with `marker` as its User-Agent and waits until the
    access log holds it: nginx logs in request order, so every earlier
    request's line is written by then."""
    request("GET", "/account/reset", headers={"User-Agent": marker})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if marker in read_text(ACCESS_LOG):
            return
        time.sleep(0.05)
    raise AssertionError("no access log line with %s in %s" % (marker, ACCESS_LOG))


def mailed_link(site, email):
    """Signs `email` up for `site`, asks for a reset and returns the one link of the mail."""
    before = svc_stack.mail_files()
    assert post("/auth/request-pass", {"email": email, "appID": site}).status == 200
    msg = wait_for_mail(lambda m: email in str(m["To"]), after=before)
    links = [html.unescape(h) for h in HREF.findall(mail_body_html(msg))]
    assert len(links) == 1, links
    return links[0]


def create_site_without_reset_url():
    out = admin("site", "create", "--user-pool", "default", "--name", SITE_NAME, "--domain", "reset-page.example",
                "--email-from", "Reset <no-reply@reset-page.example>").stdout
    return int(next(line for line in out.splitlines() if re.fullmatch(r"\d+", line.strip())))


def mail_body_html(msg):
    part = msg.get_body(preferencelist=("html",))
    return part.get_content() if part else ""


class ResetPageServedTest(ApiTest):
    def test_page_and_its_files_have_a_strict_policy(self):
        assert_strict_page(self, "/account/reset", ("reset.js", "reset.css", "form.js"))


class ResetPageQueryTokenTest(ApiTest):
    """A token in the query string is sent to the server: nginx must neither
    honour nor log it."""

    def setUp(self):
        if not os.path.exists(ACCESS_LOG):
            self.fail("no nginx access log at %s (SVC_ACCESS_LOG=off?): the test needs it" % ACCESS_LOG)

    def test_query_is_redirected_away_and_never_logged(self):
        secret = "tok" + uuid.uuid4().hex
        offsets = log_offsets()
        for path, location in (("/account/reset", "/account/reset"), ("/account/reset.js", "/account/reset.js"),
                               ("/account/reset.css", "/account/reset.css")):
            for method in ("GET", "POST", "HEAD"):
                reply = request(method, "%s?token=%s" % (path, secret), body=None)
                self.assertEqual(reply.status, 303, (method, path, reply))
                self.assertEqual(reply.headers.get("location"), location)
                self.assertRegex(reply.headers.get("x-request-id", ""), r"^[0-9a-f]{32}$")
        reply = request("GET", "/account/other?token=%s" % secret)
        self.assertExact(reply, 404, {"status": "Failed", "message": "Not found"})
        reply = request("GET", "/account/reset?0")  # a query nginx's "if ($args)" would miss
        self.assertEqual(reply.status, 303, reply)
        # The site's number is the one query the pages take; anything beside
        # it, or any other form of it, is still redirected to the bare page.
        for path in ("/account/reset", "/account/verify", "/account/"):
            self.assertEqual(request("GET", path + "?site=1").status, 200, path)
            for query in ("site=1&token=" + secret, "token=%s&site=1" % secret, "site=x" + secret, "site=",
                          "site=1" + "0" * 18, "appID=1"):
                reply = request("GET", "%s?%s" % (path, query))
                self.assertEqual((reply.status, reply.headers.get("location")), (303, path), (path, query))
        reply = request("GET", "/account/reset.js?site=1")
        self.assertEqual((reply.status, reply.headers.get("location")), (303, "/account/reset.js"))
        # The old enrolment page is a redirect to the account centre (issue 38).
        reply = request("GET", "/account/security?site=1")
        self.assertEqual((reply.status, reply.headers.get("location")), (301, "/account/?site=1"))
        reply = request("GET", "/account/security?token=" + secret)
        self.assertEqual((reply.status, reply.headers.get("location")), (301, "/account/"))

        logged_marker("marker-" + secret)
        access = read_text(ACCESS_LOG, offsets[ACCESS_LOG])
        self.assertEqual([line for line in access.splitlines() if secret in line and "marker-" not in line], [])
        self.assertEqual(account_queries(access), [])
        self.assertTrue(SITE_QUERY.search(access), "the site's number is logged as any query is")
        self.assertNotIn(secret, read_text(ERROR_LOG, offsets[ERROR_LOG]))
        # The page itself, without a query, is served and logged as before.
        self.assertEqual(request("GET", "/account/reset").status, 200)

    def test_a_site_whose_reset_url_is_the_ready_page_gets_fragment_links(self):
        site = create_site_without_reset_url()
        admin("site", "set", "--site", str(site), "--reset-url", PAGE)
        email = unique_email("resetfragment")
        self.assertReply(post("/auth/sign-up", {"email": email, "password": "Engine@1843", "appID": site}), 200)
        link = mailed_link(site, email)
        self.assertRegex(link, r"^" + re.escape("%s?site=%d" % (PAGE, site)) +
                         r"#token=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")


class ResetPageBrowserTest(ApiTest):
    def test_reset_in_chromium(self):
        site = create_site_without_reset_url()
        admin("site", "set", "--site", str(site), "--min-password-score", "3")  # issue 41
        email = unique_email("resetpage")
        self.assertReply(post("/auth/sign-up", {"email": email, "password": "Engine@1843", "appID": site}), 200)
        before = svc_stack.mail_files()
        self.assertReply(post("/auth/request-pass", {"email": email, "appID": site}), 200)
        msg = wait_for_mail(lambda m: email in str(m["To"]), after=before)
        links = [html.unescape(h) for h in HREF.findall(mail_body_html(msg))]
        self.assertEqual(len(links), 1, links)
        link = links[0]
        # The server's ready page naming the site, the token in the fragment
        # (never sent to a server).
        site_page = "%s?site=%d" % (PAGE, site)
        self.assertRegex(link, r"^" + re.escape(site_page) + r"#token=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")

        strong = "Reset@2026page"
        token = link.split("#token=", 1)[1]
        query_link = PAGE + "?token=" + token
        # A link of before issue 36, without the site: still a working link.
        old_link = PAGE + "#token=" + token
        run = subprocess.run(["node", BROWSER_SCRIPT, link, OUT_DIR, strong, query_link, old_link, "Password1!"],
                             capture_output=True,
                             text=True, timeout=180, env=dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1"))
        self.assertEqual(run.returncode, 0, run.stderr)
        seen = json.loads(run.stdout)
        s = seen["states"]

        # Chromium logs every non-2xx fetch (the spent token's 400, /favicon.ico's
        # 404); anything else (a CSP refusal, a script error) fails.
        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])
        self.assertTrue(all(r.split(" ", 1)[1].startswith("http://127.0.0.1:%d/" % HTTP_PORT)
                            for r in seen["requests"]), seen["requests"])
        self.assertEqual(seen["cookies"], 0)

        # The token in the query string: nginx redirects to the bare page,
        # and the page, even served at that address, does not take it.
        self.assertEqual(seen["queryRedirects"], [303])
        for name in ("queryViaNginx", "queryServedAsIs"):
            self.assertFalse(s[name]["formVisible"], name)
            self.assertEqual(s[name]["general"], INCOMPLETE, name)
            self.assertEqual(s[name]["url"], PAGE, name)
            self.assertEqual(s[name]["site"], "", name)
        self.assertNotIn(token, read_text(ACCESS_LOG))
        self.assertNotIn(token, read_text(ERROR_LOG))

        initial = s["initial"]
        self.assertTrue(initial["formVisible"])
        self.assertEqual(initial["url"], site_page, "the token stays in the address bar, or the site leaves it")
        # The site's name, not its number; no field asks for one.
        self.assertEqual(initial["site"], SITE_NAME)
        self.assertFalse(initial["appIdField"])
        self.assertEqual(initial["bodyText"].count(SITE_NAME), 1, initial["bodyText"])
        self.assertEqual(initial["focused"], "password")
        self.assertEqual(initial["labels"], [True, True])
        self.assertEqual(set(initial["rules"].values()), {"pending"})

        self.assertEqual(s["weak"]["rules"], {"minLength": "met", "hasUpperCase": "missing", "hasLowerCase": "met",
                                              "hasNumber": "missing", "hasSpecialChar": "missing"})
        self.assertEqual(s["weakSubmitted"]["passwordError"], "Password does not meet security requirements")
        self.assertEqual(s["weakSubmitted"]["passwordInvalid"], "true")
        self.assertEqual(s["weakSubmitted"]["focused"], "password")
        # The site's minimum score (issue 41): the server's verdict gets a line of its own.
        self.assertEqual(s["guessable"]["rules"], {"minLength": "met", "hasUpperCase": "met", "hasLowerCase": "met",
                                                   "hasNumber": "met", "hasSpecialChar": "met",
                                                   "strongEnough": "missing"})
        self.assertEqual(s["guessable"]["passwordError"], "Password does not meet security requirements")
        self.assertEqual(s["mismatch"]["confirmError"], "Passwords do not match")
        self.assertEqual(s["strong"]["rules"], {"minLength": "met", "hasUpperCase": "met", "hasLowerCase": "met",
                                                "hasNumber": "met", "hasSpecialChar": "met",
                                                "strongEnough": "pending"})

        done = s["done"]
        self.assertTrue(done["doneVisible"])
        self.assertFalse(done["formVisible"])
        self.assertEqual(done["focused"], "done-title")

        self.assertEqual(s["done"]["site"], SITE_NAME)

        # The old link without the site: the form, no name, the server's answer.
        self.assertEqual(s["phone"]["url"], PAGE)
        self.assertEqual(s["phone"]["site"], "")
        self.assertTrue(s["phone"]["formVisible"])
        self.assertEqual(s["spent"]["general"],
                         "Reset password token has expired or is invalid. Ask for a new reset e-mail and use its link.")
        self.assertTrue(s["spent"]["formVisible"])

        for name in ("initial", "done"):
            self.assertEqual(s[name]["innerWidth"], 1280)
            self.assertFalse(s[name]["overflow"], s[name])
        for name in ("phone", "spent"):
            self.assertEqual(s[name]["innerWidth"], 375)
            self.assertFalse(s[name]["overflow"], s[name])
        self.assertEqual(len(seen["screenshots"]), 8)
        for path in seen["screenshots"]:
            self.assertGreater(os.path.getsize(path), 1000, path)

        # The password the browser set logs in; the old one does not.
        self.assertTokenReply(post("/auth/login", {"email": email, "password": strong}))
        self.assertEqual(post("/auth/login", {"email": email, "password": "Engine@1843"}).status, 401)


if __name__ == "__main__":
    runner.main()

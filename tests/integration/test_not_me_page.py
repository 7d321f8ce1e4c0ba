"""The "this wasn't me" page (/account/not-me, web/account/) of the
new-device mail (issue 37) against a mail scanner: a sign-in from a new
device on a site with `site set --new-device-mail on` -> the link read from
the delivered mail -> headless Chromium (Debian's, driven by
button_page_browser.js with puppeteer-core) loads the page, whose script
runs and shows the device, and a plain GET and HEAD with curl fetch the
link: every session stays open -> the browser presses the button -> the page
says the user is signed out everywhere, every session row is revoked
('not_me'), a refresh gets 401 and a reset mail is queued. The page has the
reset page's strict policy and no external assets.

Screenshots: $SVC_BIN_DIR/test-output/not-me-page/*.png.
"""

import os
import re

import svc_stack
from svc_stack import ApiTest, HTTP_PORT, request, sql
import runner
from page_checks import assert_strict_page, press_button_page
from test_auth_tokens import parts, refresh
from test_new_device_mail import LAPTOP, PAGE, REVOKED, create_site, login, newest_of, notice_link, sign_up

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT_DIR = os.path.join(os.environ.get("SVC_BIN_DIR") or os.path.join(ROOT, "build"), "test-output", "not-me-page")
# A long user agent, as phones send them: the page shows its name only.
PHONE = ("Mozilla/5.0 (Linux; Android 14; Pixel 8 Pro Build/AP2A.240805.005) AppleWebKit/537.36 "
         "(KHTML, like Gecko) Chrome/127.0.6533.103 Mobile Safari/537.36 NotMePageTest/1.0")


def sessions_of(uid):
    """(open, revoked as not_me) sessions of the svc_users user `uid`."""
    rows = sql("SELECT SUM(revoked_at IS NULL), SUM(revoked_reason = 'not_me') FROM svc_sessions"
               " WHERE auth_table = 'svc_users' AND user_id = %d" % uid)
    return tuple(int(v) for v in rows[0])


class NotMePageServedTest(ApiTest):
    def test_page_has_the_strict_policy_and_no_external_assets(self):
        assert_strict_page(self, "/account/not-me", ("not-me.js", "form.js", "reset.css"))
        redirect = request("GET", "/account/not-me?token=abc")
        self.assertEqual((redirect.status, redirect.headers.get("location")), (303, "/account/not-me"))


class NotMePageBrowserTest(ApiTest):
    def test_loading_and_fetching_end_nothing_the_button_ends_every_session(self):
        svc_stack.require_sender(self)
        site = create_site("Not me page", True)
        email, first = sign_up(site, LAPTOP)
        uid = int(parts(first["refresh_token"])[1]["sub"])
        login(email, site, PHONE)
        _, _, link = notice_link(email)
        self.assertRegex(link, r"^" + re.escape(PAGE) + r"#token=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+&")

        def ends_nothing(loaded):
            # The page loaded and its script ran, a scanner fetched the link:
            # both sessions are open, no reset was asked for.
            self.assertEqual(sessions_of(uid), (2, 0))
            self.assertIsNone(newest_of(email, "password-reset"))

        loaded, clicked = press_button_page(self, link, OUT_DIR, "not-me-form",
                                            "http://127.0.0.1:%d/auth/sessions/not-me" % HTTP_PORT,
                                            ("time", "device", "network"), ends_nothing)
        self.assertEqual(loaded["text"]["device"], "Chrome on Android")  # named, not the user agent
        self.assertEqual(loaded["text"]["network"], "127.0.0.1")
        self.assertRegex(loaded["text"]["time"], r"^\d{4}-\d\d-\d\d \d\d:\d\d UTC$")
        self.assertFalse(loaded["overflow"], "the device line wraps")
        self.assertFalse(clicked["formVisible"], clicked)
        self.assertEqual(sessions_of(uid), (0, 2))
        self.assertExact(refresh(first["refresh_token"]), 401, REVOKED)
        self.assertIsNotNone(newest_of(email, "password-reset"))


if __name__ == "__main__":
    runner.main()

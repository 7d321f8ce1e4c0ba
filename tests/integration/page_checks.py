"""What the tests of nginx's ready pages (/account/reset, the account centre
/account/, /account/verify, /account/not-me) check alike: the page is HTML under a
strict Content-Security-Policy, with no inline script or style and nothing
from another origin, and its own script and style are served with their
types; a page of one button, driven in Chromium, changes nothing until the
button is pressed and then posts once."""

import json
import os
import re
import subprocess

from svc_stack import HTTP_PORT, request

BUTTON_PAGE_BROWSER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "button_page_browser.js")

# The directives both pages' policies hold (nginx/snippets/svc-reset-page.conf).
STRICT_DIRECTIVES = ("default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
                     "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'")


def assert_strict_page(test, path, assets, directives=()):
    """GET `path`: 200 HTML whose policy holds STRICT_DIRECTIVES and
    `directives`, nothing "unsafe", no referrer, no sniffing, a request id,
    no cookie, no inline script or style, no external asset; every name in
    `assets` (under /account/) served with its type. Returns the page reply."""
    page = request("GET", path)
    test.assertEqual(page.status, 200, page)
    test.assertTrue(page.headers["content-type"].startswith("text/html"), page.headers)
    csp = page.headers.get("content-security-policy", "")
    for directive in STRICT_DIRECTIVES + tuple(directives):
        test.assertIn(directive, csp)
    test.assertNotIn("unsafe", csp)
    test.assertEqual(page.headers.get("referrer-policy"), "no-referrer")
    test.assertEqual(page.headers.get("x-content-type-options"), "nosniff")
    test.assertRegex(page.headers.get("x-request-id", ""), r"^[0-9a-f]{32}$")
    test.assertNotIn("set-cookie", page.headers)
    text = page.raw.decode()
    # No inline script or style, nothing from another origin.
    test.assertIsNone(re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), "inline script")
    test.assertNotIn("<style", text)
    test.assertNotIn(" style=", text)
    test.assertIsNone(re.search(r'(?:src|href)="(?:https?:)?//', text), "external asset")
    for name in assets:
        kind = "text/javascript" if name.endswith(".js") else "text/css"
        r = request("GET", "/account/" + name)
        test.assertEqual(r.status, 200, r)
        test.assertTrue(r.headers["content-type"].startswith(kind), r.headers)
    test.assertEqual(request("POST", path).status, 403)
    return page


def curl_status(method_args, url):
    """The HTTP status of a plain curl fetch (no browser, no script): what a
    mail scanner that follows links does."""
    run = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", *method_args, url],
                         capture_output=True, text=True, timeout=30, check=True)
    return int(run.stdout)


def press_button_page(test, link, out_dir, form_id, post_url, text_ids=(), while_loaded=lambda loaded: None):
    """Opens `link` in Chromium (button_page_browser.js): the page must show
    its form `form_id` with the button focused and the token gone from the
    address bar; then `while_loaded(loaded state)` runs (a plain GET and
    HEAD of the link are fetched first) and must find nothing changed. Then
    the button is pressed: the page must show #done and no alert, fit its
    width, log no error, hold no cookie, request only this origin and POST
    exactly once, to `post_url`, with screenshots saved. Returns (loaded
    state, clicked state); a state's "text" maps each of `text_ids` to its
    text."""
    proc = subprocess.Popen(["node", BUTTON_PAGE_BROWSER, link, out_dir, form_id, *text_ids], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1"))
    try:
        first = proc.stdout.readline()
        test.assertTrue(first, "the browser script ended early: %s" % proc.stderr.read() if not first else "")
        loaded = json.loads(first)["loaded"]
        test.assertTrue(loaded["formVisible"], loaded)
        test.assertFalse(loaded["doneVisible"], loaded)
        test.assertEqual(loaded["url"], link.split("#")[0], "the token leaves the address bar")
        test.assertEqual(loaded["focused"], "submit")
        test.assertEqual(curl_status([], link), 200)
        test.assertEqual(curl_status(["-I"], link), 200)
        while_loaded(loaded)
        stdout, stderr = proc.communicate("click\n", timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    test.assertEqual(proc.returncode, 0, stderr)
    seen = json.loads(stdout.strip().splitlines()[-1])
    test.assertTrue(seen["clicked"]["doneVisible"], seen["clicked"])
    test.assertEqual(seen["clicked"]["general"], "")
    test.assertFalse(seen["clicked"]["overflow"], seen["clicked"])
    # Chromium logs every non-2xx fetch (/favicon.ico's 404); anything
    # else (a CSP refusal, a script error) fails.
    test.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])
    test.assertEqual(seen["cookies"], 0)
    origin = "http://127.0.0.1:%d/" % HTTP_PORT
    test.assertTrue(all(r.split(" ", 1)[1].startswith(origin) for r in seen["requests"]), seen["requests"])
    # One POST, only after the click.
    test.assertEqual([r for r in seen["requests"] if r.startswith("POST")], ["POST " + post_url])
    for path in seen["screenshots"]:
        test.assertGreater(os.path.getsize(path), 1000, path)
    return loaded, seen["clicked"]

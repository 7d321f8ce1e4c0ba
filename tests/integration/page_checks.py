"""What the tests of nginx's ready pages (/account/reset, /account/security)
check alike: the page is HTML under a strict Content-Security-Policy, with
no inline script or style and nothing from another origin, and its own
script and style are served with their types."""

import re

from svc_stack import request

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

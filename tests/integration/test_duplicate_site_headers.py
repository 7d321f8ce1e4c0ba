"""Site headers given twice, through nginx (issue 22, item 5). nginx keys the
/message/* rate limit on the first `site-id` line, while the worker used to
authenticate the last: `site-id: 999` then `site-id: 1` with site 1's key
passed and spent site 999's budget. Two `site-id`, `x-site-id` or
`x-site-key` lines (in any letter case), or a `site-id` and an `x-site-id`
that differ, now get the messaging 401; one of each, or both ids equal,
still pass.

nginx 1.22 hands a repeated header line to FastCGI as a second parameter of
the same name; the worker joins them with ", " (as nginx 1.23 does itself).
"""

import http.client
import os
import uuid

import openapi_check
import svc_stack
from svc_stack import ApiTest, HTTP_PORT, Reply, SITE_KEY, admin, q, sql

TAG = "%d%s" % (os.getpid(), uuid.uuid4().hex[:6])
UNAUTHORIZED = {"status": "Error", "message": "Unauthorized"}
# What a caller that passed the site check gets for an event nobody defined.
PASSED = {"status": "Failed", "message": "Notification event not found or disabled"}


def tearDownModule():
    sql("DELETE FROM svc_sites WHERE name = %s" % q("dup-headers-" + TAG))


def post_with_lines(path, header_lines, body=b'{"event":"no-such-event","email":"dup@example.com"}'):
    """POSTs JSON with the header lines exactly as listed, repeats included
    (http.client's dict interface cannot send a name twice)."""
    conn = http.client.HTTPConnection("127.0.0.1", HTTP_PORT, timeout=30)
    try:
        conn.putrequest("POST", path)
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Content-Length", str(len(body)))
        for name, value in header_lines:
            conn.putheader(name, value)
        conn.endheaders(body)
        resp = conn.getresponse()
        reply = Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
    finally:
        conn.close()
    openapi_check.check("POST", path, reply.status, reply.headers, reply.raw)
    return reply


def create_keyed_site():
    out = admin("site", "create", "--user-pool", "default", "--name", "dup-headers-" + TAG, "--domain", "dup-headers.example").stdout
    key = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("site_key: "))
    return int(out.strip().splitlines()[-1]), key


class DuplicateSiteHeadersTest(ApiTest):

    @classmethod
    def setUpClass(cls):
        cls.other, cls.other_key = create_keyed_site()

    def test_one_header_of_each_kind_passes(self):
        for lines in ([("site-id", "1"), ("x-site-key", SITE_KEY)],
                      [("x-site-id", "1"), ("x-site-key", SITE_KEY)],
                      [("site-id", "1"), ("x-site-id", "1"), ("x-site-key", SITE_KEY)]):
            with self.subTest(lines=[name for name, _ in lines]):
                self.assertExact(post_with_lines("/message/notification", lines), 200, PASSED)

    def test_repeated_or_conflicting_site_headers_are_401(self):
        other = str(self.other)
        cases = {
            # The attack of the issue: nginx counts site 999, the worker used to take site 1.
            "site-id twice, first a stranger": [("site-id", "999"), ("site-id", "1"), ("x-site-key", SITE_KEY)],
            "site-id twice, same value": [("site-id", "1"), ("site-id", "1"), ("x-site-key", SITE_KEY)],
            "site-id twice, letter case differs": [("Site-Id", "1"), ("site-id", "1"), ("x-site-key", SITE_KEY)],
            "x-site-id twice": [("x-site-id", "999"), ("x-site-id", "1"), ("x-site-key", SITE_KEY)],
            "x-site-key twice, wrong then right": [("site-id", "1"), ("x-site-key", "wrong"),
                                                   ("x-site-key", SITE_KEY)],
            "x-site-key twice, right both times": [("site-id", "1"), ("x-site-key", SITE_KEY),
                                                   ("x-site-key", SITE_KEY)],
            "site-id and x-site-id differ, key of site-id": [("site-id", "1"), ("x-site-id", other),
                                                             ("x-site-key", SITE_KEY)],
            "site-id and x-site-id differ, key of x-site-id": [("site-id", other), ("x-site-id", "1"),
                                                               ("x-site-key", SITE_KEY)],
            "another site's id twice with its key": [("site-id", other), ("site-id", other),
                                                     ("x-site-key", self.other_key)],
        }
        for name, lines in cases.items():
            with self.subTest(name):
                self.assertExact(post_with_lines("/message/notification", lines), 401, UNAUTHORIZED)
        # The same on the other messaging route: the check is the dispatcher's.
        reply = post_with_lines("/message/sendPush", cases["site-id twice, first a stranger"],
                                body=b'{"customerID":"x","message":"m"}')
        self.assertExact(reply, 401, UNAUTHORIZED)

    def test_the_other_site_passes_with_its_own_headers(self):
        # Control for the rows above: the second site and its key are good.
        lines = [("site-id", str(self.other)), ("x-site-key", self.other_key)]
        self.assertExact(post_with_lines("/message/notification", lines), 200, PASSED)


if __name__ == "__main__":
    svc_stack.main()

"""The front secret (issue 22, item 6; docs/deploy.md "The front secret"):
a process that opens svc-fcgi's sockets directly, as PHP-FPM running as
www-data could on a shared host, is refused, whatever it sends; nginx,
which passes SVC_FRONT_SECRET from its root-only include, is served.

The client here speaks FastCGI to the stack's three sockets itself.
"""

import os
import time
import unittest

import fcgi_client
import svc_stack
from svc_stack import ApiTest, request, sql_value, unique_email

SOCKETS = {name: os.path.join(svc_stack.STACK_DIR, name) for name in
           ("svc-fcgi.sock", "svc-fcgi-hashing.sock", "svc-fcgi-outbound.sock")}
FORBIDDEN = b'{"status":"Error","message":"Forbidden"}'
LOG = os.path.join(svc_stack.STACK_DIR, "svc-fcgi.log")


def secret():
    value = fcgi_client.stack_front_secret()
    assert value, "the stack wrote no front secret"
    return value


def log_text():
    with open(LOG, encoding="utf-8", errors="replace") as f:
        return f.read()


class FrontSecretTest(ApiTest):
    def test_each_socket_refuses_a_request_without_the_secret(self):
        for name, path in SOCKETS.items():
            with self.subTest(socket=name):
                reply = fcgi_client.request(path, "GET", "/health", front_secret=None)
                self.assertEqual(reply.status, 403, reply)
                self.assertEqual(reply.body, FORBIDDEN)

    def test_a_wrong_secret_gets_the_very_same_reply(self):
        right = secret()
        wrong_same_length = ("A" if right[0] != "A" else "B") + right[1:]
        for candidate in (wrong_same_length, right[:-1], right + "x", "", right.upper()):
            with self.subTest(candidate=len(candidate)):
                reply = fcgi_client.request(SOCKETS["svc-fcgi.sock"], "GET", "/health", front_secret=candidate)
                self.assertEqual((reply.status, reply.body), (403, FORBIDDEN), reply)
                self.assertEqual(reply.headers.get("status"), "403 Forbidden")

    def test_the_right_secret_is_served(self):
        """The refusals above are the secret's doing: with it, the same request passes."""
        for path in SOCKETS.values():
            reply = fcgi_client.request(path, "GET", "/health", front_secret=secret())
            self.assertEqual(reply.status, 200, reply)
            self.assertEqual(reply.json, {"status": "Success"})

    def test_a_refused_request_never_reaches_the_application(self):
        email = unique_email("direct")
        body = '{"email":"%s","password":"Direct@2026!x","firstname":"D","lastname":"X","appID":1}' % email
        reply = fcgi_client.request(SOCKETS["svc-fcgi-hashing.sock"], "POST", "/auth/sign-up", body=body,
                                    front_secret=None)
        self.assertEqual((reply.status, reply.body), (403, FORBIDDEN))
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE user_email = %s" % svc_stack.q(email)),
                         "0")

    def test_refusals_are_logged_without_what_was_sent(self):
        marker = "not-the-secret-" + unique_email("m").split("@")[0]
        fcgi_client.request(SOCKETS["svc-fcgi.sock"], "GET", "/health", front_secret=marker)
        deadline = time.monotonic() + 10
        while "fcgi_front_secret_refused" not in log_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        text = log_text()
        self.assertIn("fcgi_front_secret_refused", text)
        self.assertNotIn(marker, text)
        self.assertNotIn(secret(), text)

    def test_nginx_passes_the_secret(self):
        reply = request("GET", "/health")
        self.assertEqual((reply.status, reply.json), (200, {"status": "Success"}))


if __name__ == "__main__":
    unittest.main(verbosity=2)

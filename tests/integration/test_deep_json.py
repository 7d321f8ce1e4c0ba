"""Deeply nested JSON bodies through nginx (issue 22, item 1): a body of a
hundred thousand "[" (well under the 1 MiB /message/* limit) used to crash
the outbound worker that wrote sendPush's `data` back out recursively (nginx
answered 502). Every route now refuses nesting deeper than 64 levels with a
400 Validation error on `body`, and the worker that answered lives on: its
request line is logged, the master logs no worker_died, /metrics counted the
400s, and the next requests are served.
"""

import json
import os
import time

import svc_stack
from jsonio import log_events
from svc_stack import ApiTest, post, request, site_headers, unique_email

LOG = os.path.join(svc_stack.STACK_DIR, "svc-fcgi.log")
MAX_DEPTH = 64
DEEP = 100_000      # levels in the /message/* bodies: about 200 KB
AUTH_DEEP = 30_000  # /auth/* takes 64 KiB: about 60 KB
TOO_DEEP = "JSON must not be nested deeper than 64 levels"


def nested_arrays(levels):
    return "[" * levels + "]" * levels


def push_body(levels):
    return '{"customerID":"x","message":"m","data":{"a":%s}}' % nested_arrays(levels)


def notification_body(levels):
    return '{"event":"welcome-email","email":"%s","data":{"a":%s}}' % (unique_email("deep"), nested_arrays(levels))


def wait_for_request_line(request_id, timeout=10):
    """The worker logs a request after answering it, so the line may trail the reply."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = [e for e in log_events(LOG, "request") if e.get("request_id") == request_id]
        if lines:
            return lines[0]
        time.sleep(0.05)
    raise AssertionError("no request line for %s in %s" % (request_id, LOG))


def requests_counted(route, status):
    reply = request("GET", "/metrics")
    assert reply.status == 200, reply
    want = 'svc_http_requests_total{route="%s",status="%d"} ' % (route, status)
    for line in reply.raw.decode().splitlines():
        if line.startswith(want):
            return float(line.split()[-1])
    return 0.0


class DeepJsonTest(ApiTest):

    def assertTooDeep(self, reply):
        self.assertExact(reply, 400, {"status": "Failed", "message": "Validation error",
                                      "errors": [{"field": "body", "message": TOO_DEEP}]})

    def assertWorkerSurvived(self, reply, log_offset):
        """The worker that answered logged the request (a crashed one never
        does) and the master reaped no worker since log_offset."""
        line = wait_for_request_line(reply.headers["x-request-id"])
        self.assertEqual(line["status"], 400, line)
        self.assertEqual(log_events(LOG, "worker_died", log_offset), [])

    def test_deep_bodies_are_refused_and_the_workers_survive(self):
        cases = (
            ("/message/sendPush", push_body(DEEP), site_headers()),
            ("/message/notification", notification_body(DEEP), site_headers()),
            ("/auth/refresh-token", '{"payload":%s}' % nested_arrays(AUTH_DEEP), {}),
        )
        for path, body, headers in cases:
            with self.subTest(path=path):
                self.assertLess(len(body), 1024 * 1024 if path.startswith("/message/") else 64 * 1024)
                before = requests_counted(path, 400)
                log_offset = os.path.getsize(LOG)
                reply = post(path, raw=body, headers=headers)
                self.assertTooDeep(reply)
                self.assertWorkerSurvived(reply, log_offset)
                self.assertEqual(requests_counted(path, 400) - before, 1)
        # The pools serve the next requests: the outbound one (notification)
        # and the main one (health).
        self.assertExact(post("/message/notification", {"event": "welcome-email", "email": unique_email("after")},
                              headers=site_headers()), 200, {"status": "Success"})
        self.assertExact(request("GET", "/health"), 200, {"status": "Success"})

    def test_the_bound_is_64_levels_counting_the_body_itself(self):
        # body object (1) + data object (2) + 62 arrays = 64: accepted (nested
        # values are no merge values, so the mail goes out as usual) ...
        self.assertExact(post("/message/notification", raw=notification_body(MAX_DEPTH - 2), headers=site_headers()),
                         200, {"status": "Success"})
        # ... one more level is refused.
        self.assertTooDeep(post("/message/notification", raw=notification_body(MAX_DEPTH - 1), headers=site_headers()))

    def test_brackets_inside_strings_do_not_count(self):
        text = "[" * 1000 + '\\"{' * 100
        body = json.dumps({"event": "welcome-email", "email": unique_email("brackets"), "data": {"note": text}})
        self.assertExact(post("/message/notification", raw=body, headers=site_headers()), 200, {"status": "Success"})

    def test_a_caller_that_is_no_site_gets_401_whatever_the_body(self):
        # Whoever is no site gets the 401 first, whatever the body holds.
        reply = post("/message/sendPush", raw=push_body(DEEP), headers={"site-id": "1", "x-site-key": "wrong"})
        self.assertExact(reply, 401, {"status": "Error", "message": "Unauthorized"})


if __name__ == "__main__":
    svc_stack.main()

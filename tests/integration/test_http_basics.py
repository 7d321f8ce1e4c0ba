"""HTTP basics through nginx: JSON 404/405/413/400, the request id that joins
a response to its log line, and a log that never holds request bodies.

The 413/400 cases use POST /auth/login (64 KiB limit, JSON body required);
the app-layer 413 cases bypass nginx and talk FastCGI to the workers' socket.
"""

import json
import os
import time
import uuid

import fcgi_client
import svc_stack
from svc_stack import ApiTest, post, request

LOG = os.path.join(svc_stack.STACK_DIR, "svc-fcgi.log")
FCGI_SOCKET = os.path.join(svc_stack.STACK_DIR, "svc-fcgi.sock")
AUTH_LIMIT = 64 * 1024
TOO_LARGE = {"status": "Failed", "message": "Request body too large"}


def log_lines():
    with open(LOG, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def wait_for_log_line(request_id, timeout=5):
    """The worker logs a request after finishing it, so the line may trail the reply."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        for line in log_lines():
            if request_id in line:
                return json.loads(line)
        time.sleep(0.05)
    raise AssertionError("no log line with request_id %s in %s" % (request_id, LOG))


def json_body_of_size(size):
    """A JSON object of exactly `size` bytes: {"email":"a@example.com","pad":"xxx..."}."""
    head = '{"email":"a@example.com","password":"x","pad":"'
    tail = '"}'
    body = head + "x" * (size - len(head) - len(tail)) + tail
    assert len(body) == size
    return body.encode()


class HttpBasicsTest(ApiTest):

    def assertRequestId(self, reply):
        rid = reply.headers.get("x-request-id", "")
        self.assertRegex(rid, r"^[0-9a-f]{32}$", reply)
        return rid

    # --- 404 / 405 --------------------------------------------------------

    def test_unknown_path_is_json_404(self):
        reply = request("GET", "/no-such-path-%s" % uuid.uuid4().hex)
        self.assertReply(reply, 404, {"status": "Failed", "message": "Not found"})
        self.assertTrue(reply.headers.get("content-type", "").startswith("application/json"), reply.headers)
        self.assertRequestId(reply)

    def test_wrong_method_is_json_405_with_allow(self):
        reply = post("/health", {"x": 1})
        self.assertReply(reply, 405, {"status": "Failed", "message": "Method not allowed"})
        self.assertEqual(reply.headers.get("allow"), "GET")
        self.assertRequestId(reply)

    # --- request id and log ------------------------------------------------

    def test_request_id_is_in_the_log_line(self):
        path = "/rid-check-%s" % uuid.uuid4().hex
        sent = time.monotonic()
        reply = request("GET", path)
        self.assertEqual(reply.status, 404)
        rid = self.assertRequestId(reply)
        line = wait_for_log_line(rid)
        seen_ms = (time.monotonic() - sent) * 1000
        self.assertEqual(line["request_id"], rid)
        self.assertEqual(line["method"], "GET")
        self.assertEqual(line["path"], path)
        self.assertEqual(line["status"], 404)
        # duration_ms: the worker's own time for the request (steady clock),
        # in milliseconds rounded down to the microsecond. The worker's
        # interval lies inside this test's, from sending to reading the line
        # (the same monotonic clock), so it is positive and no longer; a
        # value in seconds or microseconds, or a constant 0, fails.
        duration = line["duration_ms"]
        self.assertIsInstance(duration, (int, float))
        self.assertGreater(duration, 0, line)
        self.assertLessEqual(duration, seen_ms, line)
        self.assertEqual(round(duration, 3), duration, line)

    def test_request_ids_differ_and_each_logs_once(self):
        ids = [self.assertRequestId(request("GET", "/health")) for _ in range(5)]
        self.assertEqual(len(set(ids)), 5)
        for rid in ids:
            wait_for_log_line(rid)
        text = "\n".join(log_lines())
        for rid in ids:
            self.assertEqual(text.count('"request_id":"%s"' % rid), 1, rid)

    def test_log_never_contains_the_body(self):
        marker = "BODYMARKER-%s" % uuid.uuid4().hex
        replies = [
            post("/health", {"password": marker}),                          # 405
            post("/no-such-path", {"password": marker}),                    # 404
            post("/auth/login", {"email": "x@example.com", "password": marker, "appID": 1}),
            post("/auth/login", raw='{"password":"%s",' % marker),          # malformed
        ]
        # A worker writes a request's "request" line last, after anything
        # else it logs for it: once every line is there, all was written.
        for reply in replies:
            wait_for_log_line(self.assertRequestId(reply))
        self.assertNotIn(marker, "\n".join(log_lines()))

    # --- 413 ----------------------------------------------------------------

    def test_70k_body_is_413_json(self):
        reply = post("/auth/login", raw=json_body_of_size(70 * 1024))
        self.assertReply(reply, 413, TOO_LARGE)
        self.assertRequestId(reply)

    def test_one_byte_past_the_limit_is_413_json(self):
        # nginx (client_max_body_size 64k) or the app may answer; both give this JSON.
        for size in (AUTH_LIMIT + 1, 65 * 1024 + 1):
            reply = post("/auth/login", raw=json_body_of_size(size))
            self.assertReply(reply, 413, TOO_LARGE)
            self.assertRequestId(reply)

    def test_body_at_the_limit_is_not_413(self):
        reply = post("/auth/login", raw=json_body_of_size(AUTH_LIMIT))
        self.assertNotIn(reply.status, (404, 413, 500), reply)
        self.assertIsNotNone(reply.json, reply)

    def test_app_rejects_body_past_limit_without_nginx(self):
        # Straight to the workers' FastCGI socket: the application's own limit.
        reply = fcgi_client.request(FCGI_SOCKET, "POST", "/auth/login", body=json_body_of_size(AUTH_LIMIT + 1))
        self.assertEqual(reply.status, 413, reply)
        self.assertEqual(reply.json, TOO_LARGE)

    def test_app_rejects_oversized_stream_without_content_length(self):
        # No CONTENT_LENGTH: the app must still stop at the limit by counting STDIN.
        reply = fcgi_client.request(FCGI_SOCKET, "POST", "/auth/login", body=json_body_of_size(AUTH_LIMIT + 1),
                                    content_length=False)
        self.assertEqual(reply.status, 413, reply)
        self.assertEqual(reply.json, TOO_LARGE)

    # --- 400 on the body -----------------------------------------------------

    def test_malformed_json_is_400_on_body(self):
        reply = post("/auth/login", raw='{"email":')
        self.assertValidation(reply, "body")
        self.assertEqual(set(reply.json), {"status", "message", "errors"})
        self.assertRequestId(reply)

    def test_json_array_is_400_on_body(self):
        reply = post("/auth/login", raw='[{"email":"a@example.com","password":"x"}]')
        self.assertValidation(reply, "body")

    def test_empty_body_is_400_on_body(self):
        reply = post("/auth/login", raw=b"")
        self.assertValidation(reply, "body")


if __name__ == "__main__":
    svc_stack.main()

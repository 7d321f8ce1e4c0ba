"""GET /health through nginx: 200 while MariaDB runs, a clean JSON 503 while it
is stopped, and 200 again shortly after it is back (each worker reconnects)."""

import os
import subprocess
import time

import svc_stack
from svc_stack import ApiTest, request

STACK_SH = os.path.join(svc_stack.SOURCE_DIR, "scripts", "stack.sh")
# Enough requests to reach every worker (nginx has no keepalive to them, so
# requests spread over whichever worker accepts first).
ROUNDS = 12
LEAKS = ("sql", "mysql", "mariadb", "select", "exception", "error:", "errno", "socket", "connector",
         "can't", "/tmp", ".cpp", "what()", "std::", svc_stack.STACK_DIR)


def stack(cmd):
    env = dict(os.environ, SVC_STACK_DIR=svc_stack.STACK_DIR)
    subprocess.run([STACK_SH, cmd], env=env, check=True, capture_output=True, timeout=120)


class HealthTest(ApiTest):

    def tearDown(self):
        stack("db-start")  # idempotent; later tests need the database

    def test_health_follows_the_database(self):
        reply = request("GET", "/health")
        self.assertReply(reply, 200, {"status": "Success"})
        self.assertRegex(reply.headers.get("x-request-id", ""), r"^[0-9a-f]{32}$")

        stack("db-stop")
        for _ in range(ROUNDS):
            reply = request("GET", "/health", timeout=15)
            self.assertEqual(reply.status, 503, reply)
            self.assertIsNotNone(reply.json, reply)
            self.assertEqual(reply.json.get("status"), "Failed", reply)
            self.assertIsInstance(reply.json.get("message"), str)
            self.assertTrue(reply.json["message"])
            self.assertLessEqual(set(reply.json), {"status", "message"}, reply)
            text = reply.raw.decode().lower()
            for leak in LEAKS:
                self.assertNotIn(leak.lower(), text, reply)

        stack("db-start")
        started = time.time()
        while True:
            reply = request("GET", "/health", timeout=15)
            if reply.status == 200 or time.time() - started > 5:
                break
            time.sleep(0.1)
        self.assertReply(reply, 200, {"status": "Success"})
        # Every worker is back, not only the one that answered first.
        for _ in range(ROUNDS):
            self.assertReply(request("GET", "/health"), 200, {"status": "Success"})


if __name__ == "__main__":
    svc_stack.main()

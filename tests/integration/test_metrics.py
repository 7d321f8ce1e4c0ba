"""GET /metrics through nginx: the Prometheus text format (checked with
`promtool check metrics`), counters that add up every worker's requests and
survive a worker being replaced, busy/idle workers per pool, the database
gauges, and the sender's figures. Also the log event of a database outage."""

import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import time
import unittest

import svc_stack
from svc_stack import ApiTest, request, post
from jsonio import log_events
from procs import wait_until, worker_pids

LOG = os.path.join(svc_stack.STACK_DIR, "svc-fcgi.log")
STACK_SH = os.path.join(svc_stack.SOURCE_DIR, "scripts", "stack.sh")
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
SENT = 50
ROUNDS = 5  # rounds of test_requests_add_up_across_workers until two workers shared one


def scrape():
    reply = request("GET", "/metrics")
    assert reply.status == 200, reply
    return reply


def samples(text):
    """{(name, frozenset(labels)): value} of every sample line."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, "unparsable line: %r" % line
        labels = frozenset(LABEL.findall(m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def value(parsed, name, **labels):
    return parsed.get((name, frozenset(labels.items())), 0.0)


def promtool(*args, stdin=None):
    return subprocess.run(["promtool", *args], input=stdin, capture_output=True, timeout=60)


class MetricsTest(ApiTest):

    def test_format_passes_promtool_after_traffic(self):
        if not shutil.which("promtool"):
            self.fail("promtool missing: scripts/install-deps.sh installs package prometheus")
        for path in ("/health", "/nope", "/metrics"):
            request("GET", path)
        post("/auth/login", {"email": svc_stack.unique_email("metrics"), "password": "Wrong-password-1"})
        reply = scrape()
        self.assertTrue(reply.headers.get("content-type", "").startswith("text/plain; version=0.0.4"), reply.headers)
        result = promtool("check", "metrics", stdin=reply.raw)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        parsed = samples(reply.raw.decode())
        self.assertGreaterEqual(value(parsed, "svc_http_requests_total", route="other", status="404"), 1)
        self.assertIn(("svc_http_request_duration_seconds_count", frozenset({("route", "/health")})), parsed)

    def test_requests_add_up_across_workers(self):
        # The sums only prove something when more than one worker served a
        # round: requests go out from several threads at once, and a round
        # that one worker served alone (a loaded machine may schedule it so)
        # is checked all the same and then repeated, at most ROUNDS times.
        master = svc_stack.stack_pid("svc-fcgi")
        several = len(worker_pids(master)) > 1
        for _ in range(ROUNDS):
            pids = self.one_round_adds_up()
            if len(pids) > 1 or not several:
                break
        if several:
            self.assertGreater(len(pids), 1, "all requests went to one worker in every round; the test proves nothing")

    def one_round_adds_up(self):
        """SENT concurrent GET /health: the counters of every worker add up to
        exactly SENT. Returns the pids of the workers that served them."""
        before = samples(scrape().raw.decode())
        log_offset = os.path.getsize(LOG)
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            statuses = list(pool.map(lambda _: request("GET", "/health").status, range(SENT)))
        self.assertEqual(statuses, [200] * SENT)
        after = samples(scrape().raw.decode())
        key = dict(route="/health", status="200")
        self.assertEqual(value(after, "svc_http_requests_total", **key) -
                         value(before, "svc_http_requests_total", **key), SENT)
        h = "svc_http_request_duration_seconds_count"
        self.assertEqual(value(after, h, route="/health") - value(before, h, route="/health"), SENT)
        # Every request carried nginx's SVC_QUEUE_START, so each was timed once
        # (plus the scrape itself).
        w = "svc_worker_wait_seconds_count"
        self.assertEqual(value(after, w, pool="main") - value(before, w, pool="main"), SENT + 1)
        return {e["pid"] for e in log_events(LOG, "request", log_offset) if e.get("path") == "/health"}

    def test_counters_survive_a_replaced_worker(self):
        master = svc_stack.stack_pid("svc-fcgi")
        workers = wait_until(lambda: worker_pids(master), 5)
        for _ in range(10):
            request("GET", "/health")
        before = value(samples(scrape().raw.decode()), "svc_http_requests_total", route="/health", status="200")
        victim = min(workers)
        os.kill(victim, signal.SIGKILL)
        wait_until(lambda: len(worker_pids(master)) == len(workers) and victim not in worker_pids(master) or None, 10)
        request("GET", "/health")
        after = value(samples(scrape().raw.decode()), "svc_http_requests_total", route="/health", status="200")
        self.assertEqual(after, before + 1)

    def test_workers_per_pool(self):
        master = svc_stack.stack_pid("svc-fcgi")
        alive = len(wait_until(lambda: worker_pids(master), 5))
        parsed = samples(scrape().raw.decode())
        total = sum(value(parsed, "svc_workers", pool=p, state=s)
                    for p in ("main", "hashing", "outbound") for s in ("busy", "idle"))
        self.assertEqual(total, alive)
        # The worker answering this scrape is busy with it.
        self.assertGreaterEqual(value(parsed, "svc_workers", pool="main", state="busy"), 1)
        self.assertGreaterEqual(value(parsed, "svc_workers", pool="hashing", state="idle"), 1)
        self.assertGreaterEqual(value(parsed, "svc_workers", pool="outbound", state="idle"), 1)

    def test_failed_logins_are_counted(self):
        before = samples(scrape().raw.decode())
        for _ in range(3):
            reply = post("/auth/login", {"email": svc_stack.unique_email("metrics"), "password": "Wrong-password-1"})
            self.assertEqual(reply.status, 401, reply)
        after = samples(scrape().raw.decode())
        self.assertEqual(value(after, "svc_logins_failed_total") - value(before, "svc_logins_failed_total"), 3)
        self.assertEqual(value(after, "svc_http_requests_total", route="/auth/login", status="401") -
                         value(before, "svc_http_requests_total", route="/auth/login", status="401"), 3)
        # Served by the hashing pool, so its wait histogram saw them.
        w = "svc_worker_wait_seconds_count"
        self.assertEqual(value(after, w, pool="hashing") - value(before, w, pool="hashing"), 3)

    def test_throttled_logins_are_counted(self):
        email = svc_stack.unique_email("throttle")
        before = samples(scrape().raw.decode())
        throttled = 0
        for _ in range(15):  # the failed-login lock engages after a few failures
            reply = post("/auth/login", {"email": email, "password": "Wrong-password-1"})
            self.assertIn(reply.status, (401, 429), reply)
            # The application's lock, not nginx's rate limit (which never
            # reaches a worker): "Too many attempts".
            throttled += reply.status == 429 and (reply.json or {}).get("message") == "Too many attempts"
            if throttled >= 2:
                break
        self.assertGreaterEqual(throttled, 1, "the login throttle never engaged")
        after = samples(scrape().raw.decode())
        self.assertEqual(value(after, "svc_logins_throttled_total") - value(before, "svc_logins_throttled_total"),
                         throttled)

    def test_database_gauges(self):
        # The cache refreshes at most every 10 s; wait for a read that sees a
        # sender run recorded after this test started (the stack's sender
        # loops every second).
        started = svc_stack.sql_value("SELECT UNIX_TIMESTAMP()")
        started = int(started)

        def fresh():
            p = samples(scrape().raw.decode())
            return p if value(p, "svc_sender_last_run_timestamp_seconds") > started else None

        parsed = wait_until(fresh, 25, step=1)
        self.assertIsNotNone(parsed, "no sender run showed up in /metrics")
        self.assertEqual(value(parsed, "svc_metrics_db_up"), 1)
        self.assertGreaterEqual(value(parsed, "svc_sender_runs_total"), 1)
        self.assertGreater(value(parsed, "svc_sender_last_success_timestamp_seconds"), 0)
        for name in ("svc_outbox_pending", "svc_outbox_failed", "svc_outbox_oldest_pending_age_seconds",
                     "svc_users_legacy_hash"):
            self.assertIn((name, frozenset()), parsed)


class DatabaseOutageLogTest(ApiTest):

    def tearDown(self):
        env = dict(os.environ, SVC_STACK_DIR=svc_stack.STACK_DIR)
        subprocess.run([STACK_SH, "db-start"], env=env, check=True, capture_output=True, timeout=120)
        wait_until(lambda: request("GET", "/health").status == 200 or None, 10)

    def test_outage_is_logged_as_db_unavailable(self):
        env = dict(os.environ, SVC_STACK_DIR=svc_stack.STACK_DIR)
        subprocess.run([STACK_SH, "db-stop"], env=env, check=True, capture_output=True, timeout=120)
        log_offset = os.path.getsize(LOG)
        reply = post("/auth/login", {"email": svc_stack.unique_email("outage"), "password": "Some-password-1"})
        self.assertExact(reply, 500, {"status": "Failed",
                                      "message": "An error occurred while processing your request"})
        request_id = reply.headers.get("x-request-id")
        lines = wait_until(lambda: [e for e in log_events(LOG, "db_unavailable", log_offset)
                                    if e.get("request_id") == request_id] or None, 5)
        self.assertTrue(lines, "no db_unavailable line for request %s" % request_id)
        self.assertEqual(lines[0]["level"], "error")
        self.assertEqual([e for e in log_events(LOG, "unhandled_exception", log_offset)
                          if e.get("request_id") == request_id], [])


if __name__ == "__main__":
    svc_stack.main()

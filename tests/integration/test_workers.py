"""The prefork master under the shared stack, seen through nginx: a worker
killed with SIGKILL is respawned, SIGHUP replaces every worker without a
single failed request, and a new connection wakes one idle worker of its
pool, not all of them."""

import os
import signal
import sys
import threading

import svc_stack
from svc_stack import ApiTest, request
from jsonio import log_events
from procs import wait_until, worker_pids

LOG = os.path.join(svc_stack.STACK_DIR, "svc-fcgi.log")


def master_pid():
    return svc_stack.stack_pid("svc-fcgi")


class Hammer:
    """Loops GET /health on `threads` threads and counts the outcomes."""

    def __init__(self, threads=2):
        self.stop = threading.Event()
        self.lock = threading.Condition()
        self.ok = 0
        self.failures = []
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(threads)]

    def _run(self):
        while not self.stop.is_set():
            try:
                reply = request("GET", "/health", timeout=10)
                outcome = None if reply.status == 200 else (reply.status, reply.raw[:200])
            except Exception as e:  # noqa: BLE001 - counted, reported
                outcome = repr(e)
            with self.lock:
                if outcome is None:
                    self.ok += 1
                else:
                    self.failures.append(outcome)
                self.lock.notify_all()

    def wait_for_more(self, count, timeout=30):
        """Waits until `count` more requests than so far have succeeded;
        False when they did not within timeout seconds."""
        with self.lock:
            target = self.ok + count
            return self.lock.wait_for(lambda: self.ok >= target, timeout)

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(15)


class WorkersTest(ApiTest):

    def setUp(self):
        self.master = master_pid()
        os.kill(self.master, 0)
        # Settle: a previous test may have left a respawn or reload in progress.
        self.workers = wait_until(lambda: worker_pids(self.master), 5)
        self.assertTrue(self.workers, "master %d has no workers" % self.master)
        self.assertReply(request("GET", "/health"), 200, {"status": "Success"})

    def test_a_connection_wakes_one_idle_worker_not_the_whole_pool(self):
        # Sequential requests to the outbound pool (16 workers in the stack):
        # each may wake the worker that takes it and a few more, never the
        # pool. With ppoll on the shared socket every idle worker woke for
        # every connection (about 16 voluntary switches per request).
        outbound = int(svc_stack.config_value("server", "outbound_workers"))
        if outbound < 8:
            self.skipTest("needs [server] outbound_workers >= 8, the stack has %d" % outbound)

        def switches():
            total = 0
            for pid in worker_pids(self.master):
                try:
                    with open("/proc/%d/status" % pid) as f:
                        total += sum(int(line.split()[1]) for line in f if line.startswith("voluntary_ctxt_switches"))
                except (FileNotFoundError, ProcessLookupError):
                    pass  # recycled meanwhile: its count leaves the sum, which only lowers it
            return total

        headers = svc_stack.site_headers()
        count = 200
        before = switches()
        for _ in range(count):
            # 400 Validation error: served by an outbound worker, no side effects
            self.assertEqual(request("POST", "/message/notification", {}, headers=headers).status, 400)
        per_request = (switches() - before) / count
        self.assertLess(per_request, outbound / 2, "voluntary context switches of all workers per request")

    def test_killed_worker_is_respawned(self):
        normal = len(self.workers)
        victim = min(self.workers)
        log_offset = os.path.getsize(LOG)
        with Hammer() as hammer:
            self.assertTrue(hammer.wait_for_more(20), "the load never got going: %s" % hammer.failures[:5])
            os.kill(victim, signal.SIGKILL)

            def respawned_set():
                w = worker_pids(self.master)
                return w if len(w) == normal and victim not in w and len(w - self.workers) == 1 else None

            respawned = wait_until(respawned_set, 10)
            self.assertTrue(hammer.wait_for_more(20), "no load served after the respawn")
        self.assertTrue(respawned, "no respawn: workers now %s, before %s" % (worker_pids(self.master), self.workers))
        print("\n  kill -9 %d: %d ok, %d failed in flight %s" % (victim, hammer.ok, len(hammer.failures),
                                                               hammer.failures[:5]), file=sys.stderr)
        self.assertGreater(hammer.ok, 0)
        died = [e for e in log_events(LOG, "worker_died", log_offset) if e.get("worker_pid") == victim]
        self.assertEqual(len(died), 1, died)
        self.assertEqual(died[0]["signal"], signal.SIGKILL)
        self.assertEqual(died[0]["pid"], self.master)
        for i in range(200):
            reply = request("GET", "/health")
            self.assertReply(reply, 200, {"status": "Success"})
        self.assertEqual(worker_pids(self.master), respawned)

    def test_sighup_replaces_all_workers_without_errors(self):
        normal = len(self.workers)
        log_offset = os.path.getsize(LOG)
        with Hammer(threads=3) as hammer:
            self.assertTrue(hammer.wait_for_more(20), "the load never got going: %s" % hammer.failures[:5])
            os.kill(self.master, signal.SIGHUP)

            def replaced_set():
                w = worker_pids(self.master)
                return w if len(w) == normal and not (w & self.workers) else None

            replaced = wait_until(replaced_set, 10)
            # Keep loading the fresh workers for a while: a count of requests, not a time.
            self.assertTrue(hammer.wait_for_more(10 * normal), "no load served after the reload")
        print("\n  SIGHUP: %d ok, %d failed %s" % (hammer.ok, len(hammer.failures), hammer.failures[:5]),
              file=sys.stderr)
        self.assertTrue(replaced, "workers not replaced: now %s, before %s" % (worker_pids(self.master),
                                                                            self.workers))
        self.assertGreater(hammer.ok, 0)
        self.assertEqual(hammer.failures, [])
        self.assertEqual(master_pid(), self.master)
        self.assertEqual(len(log_events(LOG, "reloaded", log_offset)), 1)
        # Retired workers exit cleanly: no worker_died for any of them.
        self.assertEqual([e for e in log_events(LOG, "worker_died", log_offset) if e.get("worker_pid") in self.workers],
                         [])
        self.assertReply(request("GET", "/health"), 200, {"status": "Success"})


if __name__ == "__main__":
    svc_stack.main()

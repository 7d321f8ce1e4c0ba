"""Outside parties that never answer cannot stall the API (issue 17).

A loopback "black hole" accepts TCP connections and never answers. Push
subscriptions point at it, so each /message/sendPush waits for its whole
[push] timeout_ms. Through real nginx -> svc-fcgi -> MariaDB:

  * 8, then 64 concurrent pushes to the black hole: while every one of them
    is still pending (none has returned), /auth/refresh-token and /health
    answer 200. The assertion is causal, not a timer: the pushes hold their
    workers until the black hole's timeout, so a refresh that had to wait
    for a worker of theirs would return after them.
  * the per-site cap ([outbound] per_site = N): with N pushes of one site
    pending, k more of that site are answered at once with the spec's
    failure reply {"status":"Error"} (and an outbound_cap_reached log line)
    while the N still wait, and another site's push still gets a place.
  * a worker killed while it holds a place frees it: the master clears the
    place when it reaps the worker, so the site's next push gets through.
  * merge queries count against the same cap: with N slow merges of one site
    running, k more get the merge's failure reply (400 on SQL) at once.

The module makes its own sites and customers and removes them at the end.
"""

import configparser
import json
import os
import re
import socket
import threading
import time

import svc_stack
from svc_stack import ApiTest, post, q, sql
from test_notification import define_template
from test_push import SINK_ORIGIN, TAG, Customer, make_site, ua

PUSH = "/message/sendPush"
PATH_NOTIFY = "/message/notification"
ERROR = {"status": "Error"}
SUCCESS = {"status": "Success"}
DEMO = {"email": "demo@example.com", "password": "Demo@2026!", "appID": 1}
WAIT_S = 30  # bound of every wait below (a wait that runs out fails the test)


def stack_config():
    conf = configparser.ConfigParser(interpolation=None, strict=False)
    conf.read(os.path.join(svc_stack.STACK_DIR, "svc.conf"))
    return conf


class BlackHole:
    """Accepts TCP connections on 127.0.0.1 and never answers; remembers the
    client port of each connection it accepted."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(512)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.peers = []
        self.held = []
        self.lock = threading.Lock()
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping:
            try:
                conn, addr = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.held.append(conn)
                self.peers.append(addr[1])

    def accepted(self):
        with self.lock:
            return len(self.peers)

    def wait_accepted(self, count):
        """Waits (bounded) until `count` connections have been accepted in all."""
        deadline = time.monotonic() + WAIT_S
        while self.accepted() < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.accepted() >= count

    def stop(self):
        self.stopping = True
        self.thread.join(5)
        with self.lock:
            for c in self.held:
                c.close()
        self.sock.close()


class Pending:
    """One request on its own thread; done() says whether its reply came."""

    def __init__(self, path, body, headers=None):
        self.reply = None
        self.error = None
        self.finished = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(path, body, headers), daemon=True)
        self.thread.start()

    def _run(self, path, body, headers):
        try:
            self.reply = post(path, body, headers=headers)
        except Exception as e:  # noqa: BLE001 - reported by the test that joins
            self.error = e
        finally:
            self.finished.set()

    def done(self):
        return self.finished.is_set()

    def join(self):
        self.finished.wait(WAIT_S * 2)
        return self.reply


def push_body(customer):
    return {"customerID": customer.token(), "title": "t", "message": "m"}


def fire(jobs):
    """Starts one pending sendPush per (site, body)."""
    return [Pending(PUSH, body, {"site-id": str(site)}) for site, body in jobs]


def client_pids(ports):
    """The svc-fcgi worker pids that own the client side of loopback TCP
    connections from these local ports (through /proc/net/tcp inodes)."""
    inodes = set()
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            parts = line.split()
            port = int(parts[1].split(":")[1], 16)
            if port in ports:
                inodes.add("socket:[%s]" % parts[9])
    with open(os.path.join(svc_stack.STACK_DIR, "pids", "svc-fcgi.pid")) as f:
        master = int(f.read())
    pids = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            if parent != master:
                continue
            links = {os.readlink("/proc/%s/fd/%s" % (pid, fd)) for fd in os.listdir("/proc/%s/fd" % pid)}
        except OSError:
            continue
        if links & inodes:
            pids.add(int(pid))
    return pids


def setUpModule():
    global HOLE, KEYS, CAP, SITES, SINK_SITE, SINK_CUSTOMERS, PAIR
    conf = stack_config()
    CAP = int(conf.get("outbound", "per_site", fallback="4"))
    HOLE = BlackHole()
    KEYS = ua("keygen")
    # 16 sites x 4 black-holed customers: 64 pushes that never meet the cap.
    SITES = []
    for i in range(16):
        sid, _ = make_site("iso%d" % i)
        endpoint = "http://127.0.0.1:%d/hole/%s/%d" % (HOLE.port, TAG, i)
        SITES.append((sid, [Customer(sid, "iso%d-%d" % (i, n), endpoint=endpoint, keys=KEYS)
                            for n in range(max(4, CAP + 3))]))
    # A site whose customers use the stack's answering push sink.
    SINK_SITE, _ = make_site("iso-sink")
    SINK_CUSTOMERS = [Customer(SINK_SITE, "iso-sink-%d" % n, keys=KEYS) for n in range(2)]
    global MERGE_SITE
    MERGE_SITE, _ = make_site("iso-merge", keys=False, extra=("--allow-sql-merge", "true",
                                                              "--email-from", "M <m@site-m.example>"))
    MERGE_SITE = int(MERGE_SITE)
    define_template(MERGE_SITE, "order", "Order [x]", "<p>[x]</p>")
    login = post("/auth/login", DEMO)
    assert login.status == 200, login
    PAIR = login.json["token"]


def tearDownModule():
    HOLE.stop()
    sql("DELETE FROM svc_customers WHERE name LIKE %s" % q("iso%-" + TAG))
    sql("DELETE FROM svc_sites WHERE name LIKE %s" % q("iso%-" + TAG))


class OutboundIsolationTest(ApiTest):

    def refresh(self):
        global PAIR
        reply = post("/auth/refresh-token", {"payload": {"access_token": PAIR["access_token"],
                                                        "refresh_token": PAIR["refresh_token"]}})
        self.assertEqual(reply.status, 200, reply)
        PAIR = reply.json["token"]

    def assertApiAnswersWhilePending(self, pending, accepted_before, expected):
        """Once `expected` pushes sit at the black hole, refresh-token and
        /health answer 200 while none of `pending` has returned."""
        self.assertTrue(HOLE.wait_accepted(accepted_before + expected),
                        "only %d of %d pushes reached the black hole"
                        % (HOLE.accepted() - accepted_before, expected))
        self.refresh()
        health = svc_stack.request("GET", "/health")
        self.assertEqual(health.status, 200, health)
        returned = [p.reply for p in pending if p.done()]
        self.assertEqual(returned, [], "pushes returned before refresh-token and /health were answered")

    def assertAllFailed(self, pending):
        for p in pending:
            reply = p.join()
            self.assertIsNone(p.error)
            self.assertEqual((reply.status, reply.json), (200, ERROR))

    def test_8_pushes_to_a_black_hole_leave_refresh_token_answering(self):
        before = HOLE.accepted()
        jobs = [(sid, push_body(c)) for sid, customers in SITES[:2] for c in customers[:4]]
        pending = fire(jobs)
        self.assertApiAnswersWhilePending(pending, before, 8)
        self.assertAllFailed(pending)

    def test_64_pushes_to_a_black_hole_leave_refresh_token_answering(self):
        workers = int(stack_config().get("server", "outbound_workers", fallback="16"))
        before = HOLE.accepted()
        jobs = [(sid, push_body(c)) for sid, customers in SITES for c in customers[:4]]
        self.assertEqual(len(jobs), 64)
        pending = fire(jobs)
        # As many as the outbound pool has workers are at the black hole; the
        # rest wait in that pool's queue, not in the main pool's.
        self.assertApiAnswersWhilePending(pending, before, min(workers, 64))
        self.assertAllFailed(pending)

    def test_plain_notification_answers_while_pushes_wait(self):
        """The outbound pool is sized by demand (fcgi/master.cpp): a few
        workers take connections, one more for each that waits on an outside
        party. With 8 pushes at the black hole, more than those few, a
        notification without SQL (an outbound route too) is still answered
        while none of the pushes has returned."""
        before = HOLE.accepted()
        jobs = [(sid, push_body(c)) for sid, customers in SITES[2:4] for c in customers[:4]]
        pending = fire(jobs)
        self.assertTrue(HOLE.wait_accepted(before + 8), "only %d of 8 pushes reached the black hole"
                        % (HOLE.accepted() - before))
        reply = Pending(PATH_NOTIFY, {"event": "order", "email": "m@example.com", "data": {"x": "1"}},
                        {"site-id": str(MERGE_SITE)}).join()
        self.assertEqual((reply.status, reply.json), (200, SUCCESS))
        self.assertEqual([p.reply for p in pending if p.done()], [],
                         "pushes returned before the notification was answered")
        self.assertAllFailed(pending)

    def test_plain_notifications_run_on_a_few_workers(self):
        """With nothing waiting on an outside party, only the pool's first
        ranks take connections (as many as the host has CPUs, at least 2):
        80 notifications from 8 concurrent clients are served by that many
        worker processes, not by every worker of the pool.

        A notification that happens to take kWaitingMs (10 ms) on a loaded
        box counts as waiting and opens one more rank while it lasts, as it
        should; so each request that took 1 ms or more (a quiet one takes
        well under; the margin covers time spent before the request's clock
        starts) allows one worker more, and 8 clients can never open more
        than 8 (fewer than the pool's 16)."""
        workers = int(stack_config().get("server", "outbound_workers", fallback="16"))
        base = min(workers, max(2, os.cpu_count() or 1))
        ids, lock = [], threading.Lock()

        def client():
            for _ in range(10):
                reply = post(PATH_NOTIFY, {"event": "order", "email": "m@example.com", "data": {"x": "1"}},
                             headers={"site-id": str(MERGE_SITE)})
                self.assertEqual((reply.status, reply.json), (200, SUCCESS))
                with lock:
                    ids.append(reply.headers["x-request-id"])

        # The earlier tests' pushes made the pool larger; it is back to its
        # base once nothing waits (the master recounts every 20 ms), and a
        # standby that was active is asleep again after its current 20 ms
        # wait for a connection: so the base must hold for 100 ms.
        steady = []
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline and (len(steady) < 3 or set(steady[-3:]) != {base}):
            scrape = svc_stack.request("GET", "/metrics")
            self.assertEqual(scrape.status, 200, scrape)
            steady.append(int(re.search(rb"^svc_outbound_active_workers (\d+)$", scrape.raw, re.M).group(1)))
            time.sleep(0.05)
        self.assertEqual(steady[-3:], [base] * 3, "svc_outbound_active_workers with nothing waiting")
        threads = [threading.Thread(target=client) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(WAIT_S)
        self.assertEqual(len(ids), 80)
        wanted = set(ids)
        seen = {}
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline and len(seen) < len(wanted):  # a busy worker writes its lines a few at a time
            with open(os.path.join(svc_stack.STACK_DIR, "svc-fcgi.log"), encoding="utf-8", errors="replace") as f:
                for line in f:
                    if '"event":"request"' in line:
                        entry = json.loads(line)
                        if entry.get("request_id") in wanted:
                            seen[entry["request_id"]] = (entry["pid"], entry["duration_ms"])
            if len(seen) < len(wanted):
                time.sleep(0.05)
        self.assertEqual(len(seen), len(wanted), "the request lines of the 80 notifications in the log")
        pids = {pid for pid, _ in seen.values()}
        slow = sorted(ms for _, ms in seen.values() if ms >= 1.0)
        self.assertLessEqual(len(pids), base + min(len(slow), len(threads)),
                             "workers that served the notifications (base %d; durations of 1 ms or more: %s)"
                             % (base, slow))

    def test_per_site_cap_answers_the_excess_at_once(self):
        sid, customers = SITES[5]
        before = HOLE.accepted()
        held = fire([(sid, push_body(c)) for c in customers[:CAP]])
        self.assertTrue(HOLE.wait_accepted(before + CAP))
        log_size = os.path.getsize(os.path.join(svc_stack.STACK_DIR, "svc-fcgi.log"))
        excess = fire([(sid, push_body(c)) for c in customers[CAP:CAP + 3]])
        for p in excess:
            reply = p.join()
            self.assertEqual((reply.status, reply.json), (200, ERROR))
        self.assertEqual([p.reply for p in held if p.done()], [], "the capped pushes waited for the held ones")
        # Another site still gets a place (its push service answers).
        other = post(PUSH, push_body(SINK_CUSTOMERS[0]), headers={"site-id": str(SINK_SITE)})
        self.assertEqual((other.status, other.json), (200, SUCCESS))
        self.assertEqual([p.reply for p in held if p.done()], [])
        with open(os.path.join(svc_stack.STACK_DIR, "svc-fcgi.log")) as f:
            f.seek(log_size)
            lines = [l for l in f if '"outbound_cap_reached"' in l and '"site_id":%s' % sid in l]
        self.assertEqual(len(lines), 3, "one outbound_cap_reached line per refused push")
        self.assertAllFailed(held)
        self.assertEqual(HOLE.accepted(), before + CAP, "a refused push reached the push service")

    def test_killed_worker_frees_its_place(self):
        sid, customers = SITES[9]
        before = HOLE.accepted()
        held = fire([(sid, push_body(c)) for c in customers[:CAP]])
        self.assertTrue(HOLE.wait_accepted(before + CAP))
        with HOLE.lock:
            ports = set(HOLE.peers[before:])
        pids = client_pids(ports)
        self.assertEqual(len(pids), CAP, "workers holding the site's places")
        # The site is full; a subscription on the answering sink is refused.
        sink_customer = Customer(sid, "iso9-sink", keys=KEYS)
        refused = post(PUSH, push_body(sink_customer), headers={"site-id": str(sid)})
        self.assertEqual((refused.status, refused.json), (200, ERROR))
        for pid in pids:
            os.kill(pid, 9)
        for p in held:
            p.join()
        # Once the master has reaped them, the places are free again.
        deadline = time.monotonic() + WAIT_S
        reply = None
        while time.monotonic() < deadline:
            reply = post(PUSH, push_body(sink_customer), headers={"site-id": str(sid)})
            if reply.json == SUCCESS:
                break
            time.sleep(0.1)
        self.assertEqual((reply.status, reply.json), (200, SUCCESS))

    def test_per_site_cap_counts_merge_queries(self):
        slow = "SELECT SLEEP(10) AS x"  # cut off by statement_timeout_ms (2 s in the stack)

        def running():
            return int(sql("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'svc_merge' "
                           "AND INFO LIKE '%SLEEP(10)%'")[0][0])

        def notification():
            return (PATH_NOTIFY, {"event": "order", "email": "m@example.com", "SQL": slow},
                    {"site-id": str(MERGE_SITE)})

        held = [Pending(*notification()) for _ in range(CAP)]
        deadline = time.monotonic() + WAIT_S
        while running() < CAP and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertEqual(running(), CAP, "merge queries running")
        excess = [Pending(*notification()) for _ in range(2)]
        for p in excess:
            p.join()
        self.assertEqual([p.reply for p in held if p.done()], [], "the capped merges waited for the held ones")
        for p in held:
            p.join()
        # The same failure reply as a merge query that failed.
        self.assertEqual({(p.reply.status, p.reply.raw) for p in excess + held},
                         {(held[0].reply.status, held[0].reply.raw)})
        self.assertEqual(held[0].reply.status, 400, held[0].reply)
        self.assertIn(b"SQL query failed", held[0].reply.raw)


if __name__ == "__main__":
    svc_stack.main()

#!/usr/bin/env python3
"""svc-fcgi's prefork master on its own (no nginx, no database): FastCGI
replies, recycling after [server] max_requests, SIGTERM shutdown, and
--check naming the bad configuration key.

The workers connect to the database lazily, so a [database] socket that does
not exist is fine for requests that never touch it (GET /nope).

Stdlib only. Env: SVC_BIN_DIR (svc-fcgi, svc-admin), PYTHONPATH including
tests/integration (for fcgi_client, jsonio and procs).
"""

import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import unittest
from pathlib import Path

import fcgi_client
import jsonio
from procs import pid_alive, signal_pending, socket_inodes, wait_until, worker_pids
import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BIN_DIR = Path(os.environ.get("SVC_BIN_DIR") or SOURCE_DIR / "build")
SVC_FCGI = str(BIN_DIR / "svc-fcgi")
SVC_ADMIN = str(BIN_DIR / "svc-admin")
# Long enough that a loaded machine never reaches it: no test waits for the
# deadline, and a worker_killed line (the master's SIGKILL at the deadline)
# fails the tests that drain.
DRAIN_SECONDS = 20
MAX_REQUESTS = 5
NOT_FOUND = {"status": "Failed", "message": "Not found"}


def keys_section():
    out = subprocess.run([SVC_ADMIN, "keygen"], check=True, capture_output=True, text=True).stdout
    lines = [line for line in out.splitlines() if line.strip() and not line.startswith("#")]
    assert lines[0].strip() == "[keys]", out
    return "\n".join(lines) + "\n"


class MasterSignalsTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        for b in (SVC_FCGI, SVC_ADMIN):  # the build makes both: missing is a failure, never a skip
            if not os.access(b, os.X_OK):
                raise AssertionError("%s is not built (SVC_BIN_DIR)" % b)
        cls.keys = keys_section()

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="svc-master-")
        self.socket = os.path.join(self.dir, "s.sock")
        self.proc = None
        self.log = None

    def tearDown(self):
        if self.proc and self.proc.poll() is None:
            for pid in worker_pids(self.proc.pid):
                os.kill(pid, signal.SIGKILL)
            self.proc.kill()
            self.proc.wait(10)
        if self.log:
            self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def write_config(self, server_extra="", keys=None):
        path = os.path.join(self.dir, "svc.conf")
        with open(path, "w") as f:
            f.write("[server]\nsocket = %s\ntest_mode = true\nfront_secret_file = none\nworkers = 2\nmax_requests = %d\ndrain_seconds = %d\n%s\n"
                    "[database]\nsocket = %s\nuser = x\nname = svc\nconnect_timeout = 1\n\n%s"
                    % (self.socket, MAX_REQUESTS, DRAIN_SECONDS, server_extra,
                       os.path.join(self.dir, "no-such-mysql.sock"), self.keys if keys is None else keys))
        return path

    def start(self):
        config = self.write_config()
        self.log_path = os.path.join(self.dir, "svc-fcgi.log")
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([SVC_FCGI, "--config", config], stdout=self.log, stderr=subprocess.STDOUT)
        ok = wait_until(lambda: os.path.exists(self.socket) and len(worker_pids(self.proc.pid)) == 2, 10)
        self.assertTrue(ok, "svc-fcgi did not start: %s" % self.read_log())

    def read_log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def log_events(self, event):
        return jsonio.log_events(self.log_path, event)

    def get_nope(self, request_id=None):
        reply = fcgi_client.request(self.socket, "GET", "/nope", request_id=request_id)
        self.assertEqual(reply.protocol_status, 0)  # FCGI_REQUEST_COMPLETE
        self.assertEqual(reply.status_line.split()[0], "404", reply)
        self.assertEqual(reply.json, NOT_FOUND)
        return reply

    # --- requests -------------------------------------------------------------

    def test_unknown_path_over_fastcgi(self):
        self.start()
        reply = self.get_nope(request_id="req-0001")
        self.assertIn("Status: 404", reply.stdout.decode("latin-1"))
        self.assertTrue(reply.headers.get("content-type", "").startswith("application/json"), reply.headers)
        self.assertEqual(int(reply.headers["content-length"]), len(reply.body))
        line = wait_until(lambda: [e for e in self.log_events("request") if e.get("request_id") == "req-0001"], 10)
        self.assertTrue(line, self.read_log())
        self.assertEqual((line[0]["method"], line[0]["path"], line[0]["status"]), ("GET", "/nope", 404))

    def test_workers_recycle_after_max_requests(self):
        self.start()
        first = worker_pids(self.proc.pid)
        seen = set()
        for i in range(12):
            self.get_nope(request_id="recycle-%02d" % i)
        wait_until(lambda: len(self.log_events("request")) == 12, 10)
        for e in self.log_events("request"):
            seen.add(e["pid"])
        now = wait_until(lambda: (lambda w: w if len(w) == 2 else None)(worker_pids(self.proc.pid)), 10)
        self.assertTrue(now, "worker count did not return to 2")
        self.assertNotEqual(now, first)
        self.assertFalse(now & {e["pid"] for e in self.log_events("worker_recycle")}, "a recycled pid still runs")
        # 12 requests cannot fit into two workers of 5: at least three served.
        self.assertGreaterEqual(len(seen), 3, seen)
        recycles = self.log_events("worker_recycle")
        self.assertGreaterEqual(len(recycles), 2, self.read_log())
        for e in recycles:
            self.assertEqual(e["served"], MAX_REQUESTS)
            self.assertIn(e["pid"], first | seen)
        served = {}
        for e in self.log_events("request"):
            served[e["pid"]] = served.get(e["pid"], 0) + 1
        self.assertLessEqual(max(served.values()), MAX_REQUESTS, served)
        self.assertEqual(self.log_events("worker_died"), [])  # recycling is a clean exit

    def test_two_sockets_from_systemd_feed_two_pools(self):
        # As svc-fcgi.socket does it: fd 3 the main socket, fd 4 the hashing
        # pool's, LISTEN_FDS=2 and LISTEN_PID = the program's own pid.
        main_path = os.path.join(self.dir, "main.sock")
        hashing_path = os.path.join(self.dir, "hashing.sock")
        listeners = []
        for path in (main_path, hashing_path):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(path)
            sock.listen(16)
            listeners.append(sock)
        config = self.write_config("hashing_workers = 1\n")
        self.log_path = os.path.join(self.dir, "svc-fcgi.log")
        self.log = open(self.log_path, "wb")
        fds = [s.fileno() for s in listeners]

        def as_systemd_does():
            high = [os.dup2(fd, 100 + i) for i, fd in enumerate(fds)]  # out of the way of 3 and 4
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        env = dict(os.environ, LISTEN_FDS="2")
        self.proc = subprocess.Popen(
            ["/bin/sh", "-c", 'LISTEN_PID=$$ exec "$0" "$@"', SVC_FCGI, "--config", config],
            stdout=self.log, stderr=subprocess.STDOUT, env=env, preexec_fn=as_systemd_does, close_fds=False)
        for sock in listeners:
            sock.close()
        # 2 workers for the main socket + 1 for the hashing pool.
        self.assertTrue(wait_until(lambda: len(worker_pids(self.proc.pid)) == 3, 10), self.read_log())
        self.assertFalse(os.path.exists(self.socket), "the configured socket must not be opened")
        for path in (main_path, hashing_path):
            reply = fcgi_client.request(path, "GET", "/nope")
            self.assertEqual(reply.status_line.split()[0], "404", reply)
            self.assertEqual(reply.json, NOT_FOUND)

    # --- SIGTERM --------------------------------------------------------------

    def test_sigterm_drains_and_exits(self):
        self.start()
        self.get_nope()
        workers = worker_pids(self.proc.pid)
        self.assertEqual(len(workers), 2)
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(DRAIN_SECONDS + 5)
        self.assertEqual(code, 0, self.read_log())
        # No stopwatch: idle workers that needed the drain deadline would show
        # as worker_killed below.
        self.assertTrue(wait_until(lambda: not any(pid_alive(p) for p in workers), 2),
                        "workers still alive: %s" % [p for p in workers if pid_alive(p)])
        self.assertFalse(os.path.exists(self.socket), "socket file left behind")
        self.assertEqual(self.log_events("worker_killed"), [], "idle workers needed SIGKILL")
        self.assertEqual(len(self.log_events("master_exit")), 1)
        self.assertEqual(sorted(e["pid"] for e in self.log_events("worker_exit")), sorted(workers))

    # SIGTERM must not interrupt libfcgi's read of the PARAMS inside
    # FCGX_Accept_r (it used to: libfcgi dropped the connection and the worker
    # waited for the SIGKILL at the drain deadline). The worker keeps SIGTERM
    # blocked while it serves, so the signal stays pending until the request
    # is done. Each step waits for that event itself, not for a time.
    def test_sigterm_completes_a_request_in_flight(self):
        self.start()
        workers = worker_pids(self.proc.pid)
        idle = {pid: socket_inodes(pid) for pid in workers}
        sock = fcgi_client.connect(self.socket)
        try:
            begin = fcgi_client._record(fcgi_client.FCGI_BEGIN_REQUEST, struct.pack(">HB5x", 1, 0))
            params = fcgi_client._record(fcgi_client.FCGI_PARAMS, fcgi_client.encode_params(
                {"REQUEST_METHOD": "GET", "REQUEST_URI": "/nope", "REQUEST_ID": "in-flight"}))
            sock.sendall(begin + params[:12])
            # A worker has accepted (it holds one socket more than when idle) and waits for the rest.
            busy = wait_until(lambda: [p for p in workers if socket_inodes(p) - idle[p]], 10)
            self.assertEqual(len(busy), 1, "no worker accepted the connection: %s" % self.read_log())
            self.proc.send_signal(signal.SIGTERM)
            # The master passed SIGTERM on: the busy worker holds it pending.
            self.assertTrue(wait_until(lambda: signal_pending(busy[0], signal.SIGTERM), 10),
                            "SIGTERM never reached the busy worker: %s" % self.read_log())
            try:
                sock.sendall(params[12:] + fcgi_client._record(fcgi_client.FCGI_PARAMS)
                             + fcgi_client._record(fcgi_client.FCGI_STDIN))
                reply = fcgi_client.read_reply(sock)
            except OSError as e:
                self.fail("request in flight at SIGTERM was dropped: %r" % e)
            self.assertEqual(reply.status, 404)
            self.assertEqual(reply.json, NOT_FOUND)
        finally:
            sock.close()
        self.assertEqual(self.proc.wait(DRAIN_SECONDS + 5), 0)
        self.assertEqual(self.log_events("worker_killed"), [], "the master waited for the drain deadline")
        self.assertEqual([e["served"] for e in self.log_events("worker_exit") if e["pid"] == busy[0]], [1])

    # --- --check --------------------------------------------------------------

    def check(self, config):
        return subprocess.run([SVC_FCGI, "--config", config, "--check"], capture_output=True, text=True, timeout=20)

    def test_check_accepts_the_good_config(self):
        result = self.check(self.write_config())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertFalse(os.path.exists(self.socket), "--check must not open the socket")

    def test_check_names_an_unknown_key(self):
        result = self.check(self.write_config(server_extra="bogus = 1\n"))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("[server] bogus", result.stderr)
        self.assertFalse(os.path.exists(self.socket))

    def test_check_names_a_missing_jwt_secret(self):
        keys = "".join(line + "\n" for line in self.keys.splitlines() if not line.startswith("jwt_secret"))
        self.assertNotIn("jwt_secret", keys)
        result = self.check(self.write_config(keys=keys))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("[keys] jwt_secret", result.stderr)


if __name__ == "__main__":
    runner.main()

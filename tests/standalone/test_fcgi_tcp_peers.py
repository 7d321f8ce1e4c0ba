#!/usr/bin/env python3
"""svc-fcgi listening on TCP (issue 11): it binds exactly the address in
[server] socket, closes a connection from a peer outside [server]
allowed_peers before reading a byte of it (whoever can send FastCGI records
sets REMOTE_ADDR and every header), serves an allowed peer, and refuses a
bare ":port" at start-up.

Peers are told apart by their source address on the loopback network:
127.0.0.1 is refused, 127.0.0.2 is allowed. No database and no nginx: the
workers connect to the database lazily and GET /nope never needs it.

Stdlib only. Env: SVC_BIN_DIR (svc-fcgi, svc-admin), PYTHONPATH including
tests/integration (for fcgi_client, jsonio and procs).
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import unittest
from pathlib import Path

import fcgi_client
import jsonio
from procs import wait_until, worker_pids
import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BIN_DIR = Path(os.environ.get("SVC_BIN_DIR") or SOURCE_DIR / "build")
SVC_FCGI = str(BIN_DIR / "svc-fcgi")
SVC_ADMIN = str(BIN_DIR / "svc-admin")
NOT_FOUND = {"status": "Failed", "message": "Not found"}


def keys_section():
    out = subprocess.run([SVC_ADMIN, "keygen"], check=True, capture_output=True, text=True).stdout
    return "\n".join(line for line in out.splitlines() if line.strip() and not line.startswith("#")) + "\n"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def params(uri):
    return {"REQUEST_METHOD": "GET", "REQUEST_URI": uri, "DOCUMENT_URI": uri, "QUERY_STRING": "",
            "SERVER_PROTOCOL": "HTTP/1.1", "GATEWAY_INTERFACE": "CGI/1.1", "REMOTE_ADDR": "203.0.113.9"}


def exchange(source, port, uri="/nope"):
    """One FastCGI request from `source`; the reply, or None when the server
    closed the connection without answering."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(10)
    try:
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        try:
            fcgi_client.send_begin(sock, params(uri))
            fcgi_client.send_stdin(sock)
            return fcgi_client.read_reply(sock)
        except (ConnectionError, BrokenPipeError):
            return None
    finally:
        sock.close()


class FcgiTcpPeersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for b in (SVC_FCGI, SVC_ADMIN):  # the build makes both: missing is a failure, never a skip
            if not os.access(b, os.X_OK):
                raise AssertionError("%s is not built (SVC_BIN_DIR)" % b)
        cls.keys = keys_section()

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="svc-tcp-")
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

    def write_config(self, server_lines):
        path = os.path.join(self.dir, "svc.conf")
        with open(path, "w") as f:
            f.write("[server]\n%s\ntest_mode = true\nfront_secret_file = none\nworkers = 1\n\n[database]\nsocket = %s\nuser = x\nname = svc\n"
                    "connect_timeout = 1\n\n%s" % (server_lines, os.path.join(self.dir, "no-mysql.sock"), self.keys))
        return path

    def start(self, server_lines, port, address="127.0.0.1"):
        config = self.write_config(server_lines)
        self.log_path = os.path.join(self.dir, "svc-fcgi.log")
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([SVC_FCGI, "--config", config], stdout=self.log, stderr=subprocess.STDOUT)

        def listening():
            try:
                with socket.create_connection((address, port), timeout=1, source_address=("127.0.0.2", 0)):
                    return len(worker_pids(self.proc.pid)) == 1
            except OSError:
                return False

        self.assertTrue(wait_until(listening, 10), "svc-fcgi did not start: %s" % self.read_log())

    def read_log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def test_peer_outside_allowed_peers_is_closed_unread(self):
        port = free_port()
        self.start("socket = 127.0.0.1:%d\nallowed_peers = 127.0.0.2/32, ::1/128" % port, port)
        self.assertIsNone(exchange("127.0.0.1", port), "a refused peer got a reply")
        reply = exchange("127.0.0.2", port)
        self.assertIsNotNone(reply, "the allowed peer got no reply: %s" % self.read_log())
        self.assertEqual(reply.status, 404, reply)
        self.assertEqual(reply.json, NOT_FOUND)
        # Refused again after serving someone: the check runs on every accept.
        self.assertIsNone(exchange("127.0.0.1", port))
        refused = wait_until(lambda: jsonio.log_events(self.log_path, "fcgi_peer_refused"), 3)
        self.assertTrue(refused, self.read_log())
        self.assertEqual(refused[0]["peer"], "127.0.0.1")
        # Only the allowed peer's request reached the application.
        requests = wait_until(lambda: jsonio.log_events(self.log_path, "request"), 3)
        self.assertEqual(len(requests), 1, self.read_log())

    def test_default_is_loopback_only(self):
        port = free_port()
        self.start("socket = 127.0.0.1:%d" % port, port)
        for source in ("127.0.0.1", "127.0.0.2"):
            reply = exchange(source, port)
            self.assertIsNotNone(reply, source)
            self.assertEqual(reply.status, 404, reply)

    def test_exactly_the_configured_address_is_bound(self):
        port = free_port()
        self.start("socket = 127.0.0.2:%d\nallowed_peers = 127.0.0.0/8" % port, port, "127.0.0.2")
        with self.assertRaises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.3", port), timeout=5).close()

    def test_bare_port_is_refused_at_start(self):
        config = self.write_config("socket = :9000")
        run = subprocess.run([SVC_FCGI, "--config", config, "--check"], capture_output=True, text=True, timeout=30)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("[server] socket: ':9000' would listen on every interface", run.stderr + run.stdout)
        config = self.write_config("socket = 127.0.0.1:9000\nallowed_peers = 10.1.0.1/24")
        run = subprocess.run([SVC_FCGI, "--config", config, "--check"], capture_output=True, text=True, timeout=30)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("[server] allowed_peers: '10.1.0.1/24'", run.stderr + run.stdout)


if __name__ == "__main__":
    runner.main()

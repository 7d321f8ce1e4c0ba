"""Kept FastCGI connections (issue 42, item 1; docs/decisions.md "Issue 42:
kept FastCGI connections"): a worker serves several requests over one
connection that asked to be kept (FCGI_KEEP_CONN, nginx's fastcgi_keep_conn
on), checks the front secret on each of them, and never sits on an idle kept
connection while new ones wait: nginx may hold more kept connections than
there are workers.

The direct tests speak FastCGI to the stack's main socket themselves; the last
one goes through the stack's nginx, whose svc_fcgi upstream keeps connections
as the production snippets do.
"""

import os
import socket
import threading

import fcgi_client
import svc_stack
from jsonio import log_events
from procs import wait_until, worker_pids
from svc_stack import ApiTest, request, site_headers

MAIN_SOCKET = os.path.join(svc_stack.STACK_DIR, "svc-fcgi.sock")
LOG = os.path.join(svc_stack.STACK_DIR, "svc-fcgi.log")
FORBIDDEN = b'{"status":"Error","message":"Forbidden"}'
HEALTHY = {"status": "Success"}


def main_workers():
    return int(svc_stack.config_value("server", "workers"))


def closed_by_peer(sock):
    """True when the peer has closed `sock` (a read returns end of file)
    within the socket's timeout."""
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


class KeptConnectionsTest(ApiTest):
    def test_several_requests_over_one_connection(self):
        with fcgi_client.connect(MAIN_SOCKET) as sock:
            for i in range(5):
                reply = fcgi_client.exchange(sock, "GET", "/health")
                self.assertEqual((reply.status, reply.json), (200, HEALTHY), "request %d: %r" % (i + 1, reply))
            # A POST with a body, read to its end, and a GET after it.
            reply = fcgi_client.exchange(sock, "POST", "/auth/sign-out", body='{"x":1}')
            self.assertEqual(reply.status, 200, reply)
            reply = fcgi_client.exchange(sock, "GET", "/health")
            self.assertEqual((reply.status, reply.json), (200, HEALTHY), reply)

    def test_the_front_secret_is_checked_on_every_request_of_a_connection(self):
        with fcgi_client.connect(MAIN_SOCKET) as sock:
            self.assertEqual(fcgi_client.exchange(sock, "GET", "/health").status, 200)
            reply = fcgi_client.exchange(sock, "GET", "/health", front_secret=None)
            self.assertEqual((reply.status, reply.body), (403, FORBIDDEN), reply)
            reply = fcgi_client.exchange(sock, "GET", "/health", front_secret="not-the-secret")
            self.assertEqual((reply.status, reply.body), (403, FORBIDDEN), reply)
            reply = fcgi_client.exchange(sock, "GET", "/health")
            self.assertEqual((reply.status, reply.json), (200, HEALTHY), reply)

    def test_a_connection_that_is_not_kept_is_closed_after_its_request(self):
        with fcgi_client.connect(MAIN_SOCKET, timeout=5) as sock:
            reply = fcgi_client.exchange(sock, "GET", "/health", keep_conn=False)
            self.assertEqual(reply.status, 200, reply)
            self.assertTrue(closed_by_peer(sock), "the worker kept a connection that did not ask for it")

    def test_idle_kept_connections_never_hold_up_new_ones(self):
        """Three kept connections per worker, each left idle after a request:
        a new connection is still served at once, and so is the next request
        on each kept one. A worker that blocked reading its idle kept
        connection would leave the others unanswered (socket timeout)."""
        count = 3 * main_workers()
        kept = [fcgi_client.connect(MAIN_SOCKET, timeout=5) for _ in range(count)]
        try:
            for rounds in range(3):
                for i, sock in enumerate(kept):
                    reply = fcgi_client.exchange(sock, "GET", "/health")
                    self.assertEqual(reply.status, 200, "round %d, connection %d: %r" % (rounds + 1, i, reply))
                reply = fcgi_client.request(MAIN_SOCKET, "GET", "/health", timeout=5)
                self.assertEqual((reply.status, reply.json), (200, HEALTHY), reply)
        finally:
            for sock in kept:
                sock.close()

    def test_a_recycling_worker_serves_its_kept_connection_and_is_replaced_at_once(self):
        """[server] max_requests reached by the worker of a kept connection:
        it keeps serving that connection (closing it could meet nginx's next
        request: a 502), takes no new one, and the master starts its
        replacement at once instead of at its exit; the pool is back to its
        size, with no second replacement, once the connection is closed."""
        master = svc_stack.stack_pid("svc-fcgi")
        normal = len(wait_until(lambda: worker_pids(master), 5))
        limit = int(svc_stack.config_value("server", "max_requests"))
        replaced = None
        with fcgi_client.connect(MAIN_SOCKET) as sock:
            # Every request of this connection goes to its one worker: at most
            # `limit` of them reach its recycle, wherever its count stood; it
            # goes on serving this connection after that.
            for i in range(limit + 200):
                self.assertEqual(fcgi_client.exchange(sock, "GET", "/health").status, 200, "request %d" % i)
                if i % 100 == 0 and len(worker_pids(master)) > normal:
                    replaced = wait_until(lambda: worker_pids(master) if len(worker_pids(master)) > normal else None,
                                          5)
                    break
            self.assertTrue(replaced, "no replacement while the recycling worker kept its connection")
            reply = fcgi_client.exchange(sock, "GET", "/health")  # the retiring worker still answers
            self.assertEqual((reply.status, reply.json), (200, HEALTHY), reply)
            reply = fcgi_client.request(MAIN_SOCKET, "GET", "/health", timeout=5)  # and new connections are served
            self.assertEqual(reply.status, 200, reply)
        # Closed: the retiring worker exits, and the pool is its usual size.
        self.assertTrue(wait_until(lambda: len(worker_pids(master)) == normal, 10),
                        "workers now %d, usually %d" % (len(worker_pids(master)), normal))

    def test_nginx_holding_more_kept_connections_than_workers(self):
        """Through the stack's nginx (keepalive upstream, fastcgi_keep_conn
        on): four clients per worker, each with its own connection to nginx,
        send GETs and POSTs (nginx never retries a POST that reached a closed
        kept connection: a 502). Every reply is 2xx, and the worker log shows
        requests that came over a connection already used."""
        clients, per_client = 4 * main_workers(), 40
        offset = os.path.getsize(LOG)
        failures, request_ids, lock = [], [], threading.Lock()

        def client(number):
            for i in range(per_client):
                try:
                    if i % 2:
                        reply = request("POST", "/auth/sign-out", {"client": number}, headers=site_headers(),
                                        timeout=10)
                    else:
                        reply = request("GET", "/health", timeout=10)
                except Exception as e:  # noqa: BLE001 - counted, reported
                    with lock:
                        failures.append(repr(e))
                    continue
                with lock:
                    request_ids.append(reply.headers.get("x-request-id"))
                    if not 200 <= reply.status < 300:
                        failures.append((reply.status, reply.raw[:200]))

        svc_stack.run_concurrently(client, range(clients))
        self.assertEqual(failures, [], "%d of %d requests failed" % (len(failures), clients * per_client))
        self.assertEqual(len(request_ids), clients * per_client)
        mine = set(request_ids)

        def logged():
            # Log lines go out when a worker next waits: poll for them.
            found = [e.get("connection_request", 1) for e in log_events(LOG, "request", offset)
                     if e.get("request_id") in mine]
            return found if len(found) == len(mine) else None

        reuses = wait_until(logged, 10) or []
        self.assertEqual(len(reuses), len(mine), "request log lines of this test's requests")
        self.assertGreater(max(reuses), 1, "nginx sent every request over a connection of its own")


if __name__ == "__main__":
    svc_stack.main()

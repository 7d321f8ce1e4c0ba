#!/usr/bin/env python3
"""Checks the nginx deploy files: the production site and the local-stack
template.

`nginx -t` on the rendered stack template and on the production site inside
a wrapper (self-signed certificate) and inside a copy of Debian's /etc/nginx
layout; then short-lived nginx instances without a FastCGI backend show the
JSON error bodies (502, 413, 429, 403) and the rate-limit keys. nginx and
openssl are installed by scripts/install-deps.sh: without them this fails.

Stdlib only. Env: SVC_SOURCE_DIR = repository root (default: two levels up).
"""

import http.client
import json
import os
import re
import shutil
import socket
import socketserver
import struct
import tempfile
import threading
import unittest
from pathlib import Path

import runner
from deploy_common import NGINX, NGINX_DIR, OPENSSL, SOURCE_DIR, free_port, read, require, run, running_nginx

PLACEHOLDERS = {"@PREFIX@", "@HTTP_PORT@", "@FCGI_SOCKET@", "@HASHING_SOCKET@", "@OUTBOUND_SOCKET@", "@USER_LINE@",
                "@ACCESS_LOG@", "@SOURCE_DIR@"}
# The routes nginx sends to svc-fcgi's second (Argon2id) worker pool.
HASHING_ROUTES = ("/auth/login", "/auth/sign-up", "/auth/reset-pass")
UNAVAILABLE = {"status": "Failed", "message": "Service unavailable"}
TOO_LARGE = {"status": "Failed", "message": "Request body too large"}
AUTH_429 = {"status": "Failed", "message": "Too many requests"}
MESSAGE_429 = {"status": "Error", "message": "Too many requests"}
MESSAGE_403 = {"status": "Error", "message": "Forbidden"}


def strip_comments(text):
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def render_stack(workdir, source_dir=SOURCE_DIR, port=None, zones=None, fcgi_socket=None, hashing_socket=None,
                 outbound_socket=None):
    """Renders nginx/stack.conf.in the way scripts/stack.sh does; returns
    (conf path, prefix, port). zones: replace the dev zones file by another
    conf.d file (e.g. the production one) to exercise real limits.
    hashing_socket: the Argon2id pool's socket (default: fcgi_socket);
    outbound_socket: the outbound pool's (default: fcgi_socket)."""
    prefix = Path(workdir) / "state"
    prefix.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    text = read(Path(source_dir) / "nginx" / "stack.conf.in")
    values = {
        "@ACCESS_LOG@": f"access_log {prefix}/nginx-access.log svc_json;",
        "@PREFIX@": str(prefix),
        "@HTTP_PORT@": str(port),
        "@FCGI_SOCKET@": str(fcgi_socket or prefix / "no-backend.sock"),
        "@HASHING_SOCKET@": str(hashing_socket or fcgi_socket or prefix / "no-backend.sock"),
        "@OUTBOUND_SOCKET@": str(outbound_socket or fcgi_socket or prefix / "no-backend.sock"),
        "@USER_LINE@": "user root;" if os.geteuid() == 0 else "",
        "@SOURCE_DIR@": str(source_dir),
    }
    for key, value in values.items():
        text = text.replace(key, value)
    if zones:
        text = text.replace("conf.d/svc-zones-dev.conf", f"conf.d/{zones}")
    conf = prefix / "nginx.conf"
    conf.write_text(text)
    return conf, prefix, port


def nginx_test(conf, prefix):
    return run([NGINX, "-t", "-c", str(conf), "-p", str(prefix), "-e", str(Path(prefix) / "nginx-t.log")])


def request(port, method, path, body=None, headers=None):
    """One request on a fresh connection → (status, headers, parsed JSON or raw bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        hdrs = {"Content-Type": "application/json"} if body is not None else {}
        hdrs.update(headers or {})
        conn.request(method, path, body=body, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read()
        ctype = resp.getheader("Content-Type", "")
        data = json.loads(raw) if ctype.startswith("application/json") else raw
        return resp.status, resp, data
    finally:
        conn.close()


def until_limited(port, method, path, headers=None, most=2000):
    """Requests on fresh connections until the first 429 (or `most`
    requests) → the list of (status, headers, data), the 429 last."""
    seen = []
    for _ in range(most):
        seen.append(request(port, method, path, body=None if method == "GET" else "{}", headers=headers))
        if seen[-1][0] == 429:
            break
    return seen


def announce_large_body(port, path, length):
    """Sends only the headers of a POST announcing `length` bytes: nginx must
    refuse on Content-Length alone, before any body is read."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall((f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {length}\r\nConnection: close\r\n\r\n").encode())
        # Read just the response: nginx keeps a lingering close open for the
        # body that never comes, so do not wait for EOF.
        data = b""
        while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < length_of(data):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, head.decode(), json.loads(body)


def length_of(response_start):
    found = re.search(rb"\r\nContent-Length: (\d+)\r\n", response_start, re.IGNORECASE)
    return int(found.group(1)) if found else 1 << 30


def location_blocks(text):
    """{"= /health": body, "/auth/": body, "@svc_413": body, ...} of one snippet
    (flat location blocks, no nesting)."""
    text = strip_comments(text)
    return {m.group(1).strip(): m.group(2)
            for m in re.finditer(r"location\s+([^{]+?)\s*\{([^{}]*)\}", text)}


def shared_part(text):
    begin = text.index("# --- shared: begin")
    end = text.index("# --- shared: end")
    return text[begin:end]


class EchoFastCGI:
    """A minimal FastCGI responder on a unix socket (several requests per
    connection when nginx asks to keep it, as svc-fcgi). It answers
    with the status named by the header X-Echo-Status (default 200) and a JSON
    body holding the parameters, the BEGIN_REQUEST flags and the request body,
    so a test sees exactly what nginx hands the application."""

    class Server(socketserver.ThreadingUnixStreamServer):
        request_queue_size = 128   # nginx may connect many times at once

    def __init__(self, path, hold=None):
        """hold: a threading.Event; when given, every request waits for it
        before its answer (self.arrived counts the requests waiting)."""
        self.path = str(path)
        self.hold = hold
        self.arrived = threading.Semaphore(0)
        handler = self._handler(self)
        self.server = self.Server(self.path, handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        os.chmod(self.path, 0o666)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    @staticmethod
    def _handler(echo):
        def records(rfile):
            while True:
                header = rfile.read(8)
                if len(header) < 8:
                    return
                _, rtype, rid, clen, plen, _ = struct.unpack("!BBHHBB", header)
                content = rfile.read(clen)
                rfile.read(plen)
                yield rtype, rid, content

        def pairs(data):
            out, i = {}, 0
            while i < len(data):
                lengths = []
                for _ in range(2):
                    if data[i] < 128:
                        lengths.append(data[i])
                        i += 1
                    else:
                        lengths.append(struct.unpack("!I", data[i:i + 4])[0] & 0x7FFFFFFF)
                        i += 4
                name = data[i:i + lengths[0]].decode()
                out[name] = data[i + lengths[0]:i + lengths[0] + lengths[1]].decode()
                i += lengths[0] + lengths[1]
            return out

        def record(rtype, rid, content):
            return struct.pack("!BBHHBB", 1, rtype, rid, len(content), 0, 0) + content

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                # Requests until the connection ends, or after one that did
                # not ask to keep it (FCGI_KEEP_CONN).
                stream = records(self.rfile)
                while self.answer(stream):
                    pass

            def answer(self, stream):
                params, stdin, flags, rid = b"", b"", None, 1
                for rtype, rid, content in stream:
                    if rtype == 1:                       # BEGIN_REQUEST
                        flags = content[2]
                    elif rtype == 4:                     # PARAMS
                        params += content
                    elif rtype == 5:                     # STDIN
                        if not content:
                            break
                        stdin += content
                if flags is None:
                    return False
                env = pairs(params)
                if echo.hold is not None:
                    echo.arrived.release()
                    echo.hold.wait(30)
                status = env.get("HTTP_X_ECHO_STATUS", "200")
                body = json.dumps({"params": env, "flags": flags, "stdin": stdin.decode()}).encode()
                out = (f"Status: {status} Echo\r\nContent-Type: application/json\r\n\r\n").encode() + body
                for i in range(0, len(out), 65535):
                    self.wfile.write(record(6, rid, out[i:i + 65535]))
                self.wfile.write(record(6, rid, b""))
                self.wfile.write(record(3, rid, struct.pack("!IB3x", 0, 0)))   # END_REQUEST
                self.wfile.flush()
                return bool(flags & 1)
        return Handler


class NginxFilesTest(unittest.TestCase):
    """Static rules the nginx files must keep (see the comments in them)."""

    @classmethod
    def setUpClass(cls):
        require(NGINX, "nginx")

    def test_stack_template_placeholders_and_shape(self):
        text = read(NGINX_DIR / "stack.conf.in")
        self.assertEqual(set(re.findall(r"@[A-Z_]+@", text)), PLACEHOLDERS)
        code = strip_comments(text)
        self.assertNotRegex(code, r"\bdaemon\b")
        self.assertIn("pid @PREFIX@/nginx.pid;", code)
        self.assertIn("error_log @PREFIX@/nginx-error.log", code)
        self.assertIn("worker_connections 1024;", code)
        self.assertIn("listen 127.0.0.1:@HTTP_PORT@;", code)
        for kind in ("client_body", "fastcgi", "proxy", "uwsgi", "scgi"):
            self.assertRegex(code, rf"{kind}_temp_path\s+@PREFIX@/nginx-tmp")
        for snippet in ("svc-fastcgi-params.conf", "svc-message-access.conf", "svc-locations.conf"):
            self.assertIn(f"include @SOURCE_DIR@/nginx/snippets/{snippet};", code)
        self.assertIn("include @SOURCE_DIR@/nginx/conf.d/svc-zones-dev.conf;", code)

    def test_production_site_shape(self):
        code = strip_comments(read(NGINX_DIR / "svc.conf"))
        self.assertRegex(code, r"upstream svc_fcgi \{\s*server unix:/run/svc/svc-fcgi.sock;")
        self.assertRegex(code, r"upstream svc_fcgi_hashing \{\s*server unix:/run/svc/[a-z-]+\.sock;\s*\}")
        self.assertRegex(code, r"upstream svc_fcgi_outbound \{\s*server unix:/run/svc/[a-z-]+\.sock;\s*\}")
        self.assertRegex(code, r"listen 443 ssl http2;")
        self.assertRegex(code, r"return 301 https://")
        self.assertIn("ssl_certificate     /etc/ssl/svc/fullchain.pem;", code)
        self.assertIn("ssl_protocols TLSv1.2 TLSv1.3;", code)
        for snippet in ("svc-fastcgi-params.conf", "svc-message-access.conf", "svc-locations.conf"):
            self.assertIn(f"include snippets/{snippet};", code)
        for name in ("svc.conf", "stack.conf.in"):
            text = strip_comments(read(NGINX_DIR / name))
            # Kept connections (issue 42) to the main pool only: short-lived, so a
            # retiring worker waits for nginx to close them (about 5 s), and idle
            # for less than the workers' own limit (75 s), so nginx always closes
            # an idle one first (a worker closing it races a POST: 502).
            main = re.search(r"upstream svc_fcgi \{([^}]*)\}", text).group(1)
            self.assertRegex(main, r"\bkeepalive \d+;", name)
            timeout = int(re.search(r"\bkeepalive_timeout (\d+)s;", main).group(1))
            lifetime = int(re.search(r"\bkeepalive_time (\d+)s;", main).group(1))
            self.assertLess(timeout, 75, name)
            self.assertLessEqual(lifetime, 10, name)
            # A worker busy hashing or waiting on an outside party must not hold
            # connections nginx would send the next request over.
            for pool in ("svc_fcgi_hashing", "svc_fcgi_outbound"):
                block = re.search(r"upstream %s \{([^}]*)\}" % pool, text).group(1)
                self.assertNotRegex(block, r"\bkeepalive\b", (name, pool))

    def test_fastcgi_params(self):
        code = strip_comments(read(NGINX_DIR / "snippets" / "svc-fastcgi-params.conf"))
        for param in ("REQUEST_METHOD", "REQUEST_URI", "SCRIPT_NAME", "QUERY_STRING",
                      "CONTENT_TYPE", "CONTENT_LENGTH", "REMOTE_ADDR", "SERVER_NAME", "HTTPS"):
            self.assertRegex(code, rf"fastcgi_param\s+{param}\s")
        self.assertRegex(code, r"fastcgi_param\s+REQUEST_ID\s+\$request_id;")
        self.assertRegex(code, r'fastcgi_param\s+HTTP_PROXY\s+"";')
        self.assertRegex(code, r"add_header X-Request-Id \$request_id always;")
        self.assertRegex(code, r"fastcgi_keep_conn on;")

    def test_upstream_failover_never_replays_a_request(self):
        # Issue 11: with several app hosts nginx tries the next one on a
        # connect error or timeout, but never re-sends a POST that may have run.
        code = strip_comments(read(NGINX_DIR / "snippets" / "svc-fastcgi-params.conf"))
        self.assertRegex(code, r"fastcgi_next_upstream\s+error\s+timeout;")
        self.assertRegex(code, r"fastcgi_next_upstream_tries\s+2;")
        self.assertRegex(code, r"fastcgi_connect_timeout\s+[1-3]s;")
        for name in ("snippets/svc-fastcgi-params.conf", "snippets/svc-locations.conf", "svc.conf", "stack.conf.in"):
            self.assertNotIn("non_idempotent", strip_comments(read(NGINX_DIR / name)), name)

    def test_locations(self):
        blocks = location_blocks(read(NGINX_DIR / "snippets" / "svc-locations.conf"))
        for name in ("= /health", "= /.well-known/jwks.json", "/auth/", "/message/", "/"):
            self.assertIn("fastcgi_pass svc_fcgi;", blocks[name], name)
        for name, body in blocks.items():
            # These would cancel the inherited server-level params/headers.
            self.assertNotIn("fastcgi_param", body, name)
            if name in ("@svc_429", "@svc_message_429"):
                # Retry-After on nginx's own 429s, and the inherited two repeated.
                self.assertEqual(re.findall(r"add_header\s+(\S+)", body),
                                 ["Retry-After", "X-Request-Id", "Strict-Transport-Security"], name)
                self.assertIn("add_header X-Request-Id $request_id always;", body)
                self.assertIn("add_header Strict-Transport-Security $svc_hsts always;", body)
                continue
            self.assertNotIn("add_header", body, name)
            if name == "/message/" or name.startswith("~ ^/message/"):
                self.assertNotRegex(body, r"\b(allow|deny)\b", "must inherit the access list")
            elif name == "= /metrics":
                # Its own scraper list, ending in "deny all;" (docs/operations.md).
                self.assertNotIn("allow all;", body, name)
                self.assertIn("deny all;", body, name)
            else:
                self.assertIn("allow all;", body, name)
        self.assertIn("client_max_body_size 64k;", blocks["/auth/"])
        self.assertIn("limit_req zone=svc_auth burst=20 nodelay;", blocks["/auth/"])
        self.assertIn("error_page 429 = @svc_429;", blocks["/auth/"])
        self.assertIn("client_max_body_size 1m;", blocks["/message/"])
        self.assertIn("limit_req zone=svc_message burst=50 nodelay;", blocks["/message/"])
        self.assertIn("error_page 429 = @svc_message_429;", blocks["/message/"])
        # The Argon2id routes: limited like /auth/, served by the hashing pool.
        hashing = ("~ ^/auth/(?:login|sign-up|reset-pass|mfa/disable|password/change|email/change|account/delete|"
                   "oidc/sign-in|oidc/register)$")
        self.assertIn("fastcgi_pass svc_fcgi_hashing;", blocks[hashing])
        for line in ("client_max_body_size 64k;", "limit_req zone=svc_auth burst=20 nodelay;",
                     "error_page 429 = @svc_429;"):
            self.assertIn(line, blocks[hashing])
        # The routes that wait on outside parties: limited like their family,
        # served by the outbound pool.
        outbound_auth = "~ ^/auth/(?:user-sms-code)$"
        outbound_message = "~ ^/message/(?:sendPush|notification)$"
        # Upstream sign-in's callback waits on the provider (issue 51).
        outbound_upstream = "~ ^/oidc/[0-9]+/upstream/[a-z0-9-]+/callback$"
        for name, family in ((outbound_auth, "/auth/"), (outbound_message, "/message/"),
                             (outbound_upstream, "/oidc/")):
            self.assertIn("fastcgi_pass svc_fcgi_outbound;", blocks[name])
            for line in blocks[family].splitlines():
                if line.strip().startswith(("client_max_body_size", "limit_req", "error_page")):
                    self.assertIn(line.strip(), blocks[name], name)
        for name in ("= /health", "= /.well-known/jwks.json", "/auth/", "/message/", "/", hashing, outbound_auth,
                     outbound_message):
            for code in (413, 502, 503, 504):
                self.assertRegex(blocks[name], rf"error_page {code} = @svc_{code};", name)

    def test_zones(self):
        prod = read(NGINX_DIR / "conf.d" / "svc-zones.conf")
        dev = read(NGINX_DIR / "conf.d" / "svc-zones-dev.conf")
        self.assertEqual(shared_part(prod), shared_part(dev), "maps/log format drifted")
        code = strip_comments(prod)
        self.assertRegex(code, r"limit_req_zone \$binary_remote_addr\s+zone=svc_auth:10m\s+rate=10r/s;")
        self.assertRegex(code, r"limit_req_zone \$svc_site_key\s+zone=svc_message:10m\s+rate=50r/s;")
        self.assertRegex(code, r"limit_req_zone \$binary_remote_addr\s+zone=svc_health:1m\s+rate=5r/s;")
        self.assertIn("limit_req_status 429;", code)
        # The local stack counts nothing: every zone is keyed by a variable that is always empty.
        dev_code = strip_comments(dev)
        self.assertRegex(dev_code, r"map \$request_method \$svc_dev_no_limit \{\s*default \"\";\s*\}")
        for zone in ("svc_auth", "svc_message", "svc_health"):
            self.assertRegex(dev_code, rf"limit_req_zone \$svc_dev_no_limit\s+zone={zone}:")


class NginxConfigTestTest(unittest.TestCase):
    """`nginx -t` on every way the files are meant to be included."""

    @classmethod
    def setUpClass(cls):
        require(NGINX, "nginx")

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="svc-deploy-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def self_signed_cert(self):
        cert, key = self.tmp / "fullchain.pem", self.tmp / "privkey.pem"
        r = run([require(OPENSSL, "openssl"), "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                 "-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(cert)])
        self.assertEqual(r.returncode, 0, r.stderr)
        return cert, key

    def production_site(self, logdir):
        cert, key = self.self_signed_cert()
        text = read(NGINX_DIR / "svc.conf")
        for old, new in (("/etc/ssl/svc/fullchain.pem", cert), ("/etc/ssl/svc/privkey.pem", key),
                         ("/var/log/nginx/", f"{logdir}/")):
            self.assertIn(old, text)
            text = text.replace(old, str(new))
        return text

    def test_stack_template_renders_and_passes(self):
        conf, prefix, _ = render_stack(self.tmp)
        self.assertNotRegex(read(conf), r"@[A-Z_]+@")
        r = nginx_test(conf, prefix)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_production_site_in_wrapper(self):
        shutil.copytree(NGINX_DIR / "snippets", self.tmp / "snippets")
        (self.tmp / "svc.conf").write_text(self.production_site(self.tmp))
        (self.tmp / "nginx.conf").write_text(f"""
pid {self.tmp}/nginx.pid;
error_log {self.tmp}/error.log;
events {{ worker_connections 64; }}
http {{
    client_body_temp_path {self.tmp}/tmp; fastcgi_temp_path {self.tmp}/tmp;
    proxy_temp_path {self.tmp}/tmp; uwsgi_temp_path {self.tmp}/tmp; scgi_temp_path {self.tmp}/tmp;
    include {NGINX_DIR}/conf.d/svc-zones.conf;
    include {self.tmp}/svc.conf;
}}
""")
        r = nginx_test(self.tmp / "nginx.conf", self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_production_site_in_debian_layout(self):
        """Installed as docs/deploy.md says, next to Debian's default nginx.conf and site."""
        # Debian's nginx package ships it: missing means a broken nginx install.
        self.assertTrue(Path("/etc/nginx/nginx.conf").is_file(), "no /etc/nginx/nginx.conf to copy")
        etc = self.tmp / "etc-nginx"
        shutil.copytree("/etc/nginx", etc, symlinks=False, ignore_dangling_symlinks=True)
        main = read(etc / "nginx.conf").replace("/etc/nginx/", f"{etc}/")
        main = main.replace("/var/log/nginx/", f"{self.tmp}/").replace("/run/nginx.pid", f"{self.tmp}/nginx.pid")
        main = re.sub(r"\bhttp\s*\{", f"http {{\n    client_body_temp_path {self.tmp}/tmp; "
                      f"fastcgi_temp_path {self.tmp}/tmp; proxy_temp_path {self.tmp}/tmp; "
                      f"uwsgi_temp_path {self.tmp}/tmp; scgi_temp_path {self.tmp}/tmp;", main, count=1)
        (etc / "nginx.conf").write_text(main)
        for site in (etc / "sites-available").glob("*"):   # default site logs to /var/log too
            site.write_text(read(site).replace("/var/log/nginx/", f"{self.tmp}/"))
        (etc / "conf.d").mkdir(exist_ok=True)
        (etc / "snippets").mkdir(exist_ok=True)
        (etc / "sites-enabled").mkdir(exist_ok=True)
        shutil.copy(NGINX_DIR / "conf.d" / "svc-zones.conf", etc / "conf.d")
        for snippet in (NGINX_DIR / "snippets").glob("*.conf"):
            shutil.copy(snippet, etc / "snippets")
        (etc / "sites-available" / "svc.conf").write_text(self.production_site(self.tmp))
        (etc / "sites-enabled" / "svc.conf").symlink_to(etc / "sites-available" / "svc.conf")
        r = nginx_test(etc / "nginx.conf", self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)


class NginxLiveTest(unittest.TestCase):
    """nginx on the rendered stack template with no FastCGI backend: every
    answer comes from nginx, so these are exactly nginx's JSON error pages."""

    @classmethod
    def setUpClass(cls):
        require(NGINX, "nginx")

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="svc-deploy-live-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def assert_json_error(self, status, resp, data, want_status, want_body):
        self.assertEqual((status, data), (want_status, want_body))
        self.assertEqual(resp.getheader("Content-Type"), "application/json")
        self.assertRegex(resp.getheader("X-Request-Id") or "", r"^[0-9a-f]{32}$")
        # Every 429 says when to come back (issue 36); no other error does.
        self.assertEqual(resp.getheader("Retry-After"), "1" if status == 429 else None)

    def test_dev_stack_error_bodies_and_no_rate_limit(self):
        conf, prefix, port = render_stack(self.tmp)
        with running_nginx(conf, prefix, port):
            for method, path in (("GET", "/health"), ("POST", "/auth/login"),
                                 ("POST", "/message/notification"), ("GET", "/no/such/path")):
                status, resp, data = request(port, method, path, body=None if method == "GET" else "{}",
                                             headers={"site-id": "1"})
                self.assert_json_error(status, resp, data, 502, UNAVAILABLE)
                self.assertIsNone(resp.getheader("Strict-Transport-Security"), "HSTS on plain HTTP")

            # Body limits: refused on Content-Length alone (2 MB > 1 MiB, 100 KB > 64 KiB) ...
            status, head, data = announce_large_body(port, "/message/notification", 2 * 1024 * 1024)
            self.assertEqual((status, data), (413, TOO_LARGE))
            self.assertIn("Content-Type: application/json", head)
            status, _, data = announce_large_body(port, "/auth/login", 100 * 1024)
            self.assertEqual((status, data), (413, TOO_LARGE))
            # ... and a whole 2 MB body sent anyway gets the same answer.
            status, resp, data = request(port, "POST", "/message/notification",
                                         body=b"x" * (2 * 1024 * 1024), headers={"site-id": "1"})
            self.assert_json_error(status, resp, data, 413, TOO_LARGE)
            # Just under the limits: passed on (to the missing backend).
            status, _, _ = request(port, "POST", "/auth/login", body=b" " * (60 * 1024))
            self.assertEqual(status, 502)
            status, _, _ = request(port, "POST", "/message/notification", body=b" " * (900 * 1024),
                                   headers={"site-id": "1"})
            self.assertEqual(status, 502)

            # The test suite's bursts from 127.0.0.1 must never see a 429.
            statuses = [request(port, "POST", path, body="{}", headers={"site-id": "1"})[0]
                        for _ in range(80) for path in ("/auth/login", "/message/notification")]
            self.assertNotIn(429, statuses)
            self.assertEqual(set(statuses), {502})

            # The access log is JSON and carries the id returned to the client.
            status, resp, _ = request(port, "GET", "/health")
            rid = resp.getheader("X-Request-Id")
        lines = [json.loads(line) for line in read(prefix / "nginx-access.log").splitlines()]
        self.assertIn(rid, [line["request_id"] for line in lines])

    def test_what_the_application_receives(self):
        """Through a stand-in FastCGI application: the parameters each location
        passes, FCGI_KEEP_CONN asked for, and the application's own error
        bodies passed through untouched."""
        sock = self.tmp / "fcgi.sock"
        conf, prefix, port = render_stack(self.tmp, fcgi_socket=sock)
        with EchoFastCGI(sock), running_nginx(conf, prefix, port):
            for method, path, body in (("GET", "/health?probe=1", None),
                                       ("POST", "/auth/login", '{"a":1}'),
                                       ("POST", "/message/notification", '{"event":"x"}'),
                                       ("GET", "/no/such/path", None)):
                status, resp, data = request(port, method, path, body=body,
                                             headers={"site-id": "3", "Proxy": "http://evil.example"})
                self.assertEqual(status, 200, path)
                env = data["params"]
                self.assertEqual(env["REQUEST_METHOD"], method)
                self.assertEqual(env["REQUEST_URI"], path)
                self.assertEqual(env["QUERY_STRING"], path.partition("?")[2])
                self.assertEqual(env["REQUEST_ID"], resp.getheader("X-Request-Id"))
                self.assertEqual(env["REMOTE_ADDR"], "127.0.0.1")
                self.assertEqual(env["HTTP_SITE_ID"], "3")
                self.assertEqual(env.get("HTTP_PROXY", ""), "", "httpoxy: client Proxy header passed on")
                self.assertNotIn("HTTPS", env)
                self.assertEqual(data["flags"] & 1, 1, "FCGI_KEEP_CONN must be on")
                if body is not None:
                    self.assertEqual((env["CONTENT_LENGTH"], env["CONTENT_TYPE"], data["stdin"]),
                                     (str(len(body)), "application/json", body))
            # The application's errors are its own (fastcgi_intercept_errors off).
            for code in (404, 429, 500, 502):
                status, resp, data = request(port, "POST", "/auth/login", body="{}",
                                             headers={"X-Echo-Status": str(code)})
                self.assertEqual(status, code)
                self.assertIn("params", data)
                self.assertRegex(resp.getheader("X-Request-Id") or "", r"^[0-9a-f]{32}$")

    def test_argon2_routes_go_to_the_hashing_pool(self):
        """login, sign-up and reset-pass reach the hashing pool's socket, and
        nothing else does (svc-fcgi [server] hashing_socket)."""
        sock = self.tmp / "hashing.sock"
        conf, prefix, port = render_stack(self.tmp, hashing_socket=sock)
        with EchoFastCGI(sock), running_nginx(conf, prefix, port):
            for path in HASHING_ROUTES + ("/auth/login?x=1",):
                status, _, data = request(port, "POST", path, body="{}")
                self.assertEqual(status, 200, path)
                self.assertEqual(data["params"]["REQUEST_URI"], path)
            for method, path in (("POST", "/auth/refresh-token"), ("POST", "/auth/login/"),
                                 ("POST", "/auth/loginx"), ("GET", "/health"),
                                 ("POST", "/message/notification")):
                status, _, data = request(port, method, path, body=None if method == "GET" else "{}",
                                          headers={"site-id": "1"})
                self.assertEqual((status, data), (502, UNAVAILABLE), path)

    def test_the_hashing_pool_queue_is_bounded(self):
        """At most 32 requests to the Argon2id pool are in nginx at once
        (limit_conn svc_hashing 32, issue 42): the 33rd gets the /auth/ 429
        with Retry-After at once, other routes are not counted, and the
        count frees as answers go out."""
        sock = self.tmp / "hashing.sock"
        conf, prefix, port = render_stack(self.tmp, hashing_socket=sock)
        release = threading.Event()
        with EchoFastCGI(sock, hold=release) as echo, running_nginx(conf, prefix, port):
            held = []

            def one(path):
                held.append(request(port, "POST", path, body="{}")[0])

            paths = [HASHING_ROUTES[i % len(HASHING_ROUTES)] for i in range(32)]
            threads = [threading.Thread(target=one, args=(p,)) for p in paths]
            for t in threads:
                t.start()
            try:
                for _ in paths:   # all 32 reached the application and wait there
                    self.assertTrue(echo.arrived.acquire(timeout=20), f"a held request never arrived: {held}")
                for path in HASHING_ROUTES + ("/auth/password/change",):
                    status, resp, data = request(port, "POST", path, body="{}")
                    self.assert_json_error(status, resp, data, 429, AUTH_429)
                # Not a hashing route: not counted (no backend on the main pool here).
                status, _, data = request(port, "POST", "/auth/refresh-token", body="{}")
                self.assertEqual((status, data), (502, UNAVAILABLE))
            finally:
                release.set()
                for t in threads:
                    t.join(30)
            self.assertEqual(held, [200] * 32)
            status, _, _ = request(port, "POST", "/auth/login", body="{}")
            self.assertEqual(status, 200)

    def test_outbound_routes_go_to_the_outbound_pool(self):
        """sendPush, notification and user-sms-code reach the outbound pool's
        socket, and nothing else does (svc-fcgi [server] outbound_socket)."""
        sock = self.tmp / "outbound.sock"
        conf, prefix, port = render_stack(self.tmp, outbound_socket=sock)
        with EchoFastCGI(sock), running_nginx(conf, prefix, port):
            for path in ("/message/sendPush", "/message/notification", "/auth/user-sms-code",
                         "/message/sendPush?x=1"):
                status, _, data = request(port, "POST", path, body="{}", headers={"site-id": "1"})
                self.assertEqual(status, 200, path)
                self.assertEqual(data["params"]["REQUEST_URI"], path)
            for method, path in (("POST", "/auth/refresh-token"), ("POST", "/message/sendPush/"),
                                 ("POST", "/message/sendPushx"), ("GET", "/health"), ("POST", "/auth/login"),
                                 ("POST", "/auth/verify-sms-code")):
                status, _, data = request(port, method, path, body=None if method == "GET" else "{}",
                                          headers={"site-id": "1"})
                self.assertEqual((status, data), (502, UNAVAILABLE), path)

    def test_production_rate_limits(self):
        """The production zones' budgets and keys. nginx refills a budget with
        time, so no step here depends on how fast the requests go: a burst is
        sent until the first 429 (bounded), and the shared-key check retries
        the moment right after a 429 a bounded number of times."""
        conf, prefix, port = render_stack(self.tmp, zones="svc-zones.conf")
        with running_nginx(conf, prefix, port):
            # /auth/*: 10 r/s per address, burst 20 → the first 21 pass, then 429.
            auth = until_limited(port, "POST", "/auth/login")
            self.assertGreaterEqual(len(auth), 22)
            self.assertEqual({s for s, _, _ in auth[:-1]}, {502})
            self.assert_json_error(*auth[-1], 429, AUTH_429)

            # /message/*: 50 r/s per site id (site-id, else x-site-id), burst 50.
            msg = until_limited(port, "POST", "/message/notification", headers={"site-id": "7"})
            self.assertGreaterEqual(len(msg), 52)
            self.assertEqual({s for s, _, _ in msg[:-1]}, {502})
            self.assert_json_error(*msg[-1], 429, MESSAGE_429)
            # x-site-id is the same key as site-id: right after site-id 7 is
            # refused, x-site-id 7 is refused too. A request that lands after
            # the 20 ms nginx needs to refill one slot passes, so try again;
            # with a key of its own x-site-id 7 would pass 51 times first.
            shared = []
            for _ in range(20):
                until_limited(port, "POST", "/message/notification", headers={"site-id": "7"})
                status, _, data = request(port, "POST", "/message/notification", body="{}",
                                          headers={"x-site-id": "7"})
                shared.append((status, data))
                if status == 429:
                    break
            self.assertEqual(shared[-1], (429, MESSAGE_429), shared)
            # Another site has its own budget.
            status, _, _ = request(port, "POST", "/message/notification", body="{}",
                                   headers={"site-id": "8"})
            self.assertEqual(status, 502)

            # /health: 5 r/s per address, burst 20 (zone svc_health), its own budget.
            health = until_limited(port, "GET", "/health")
            self.assertGreaterEqual(len(health), 22)
            self.assertEqual({s for s, _, _ in health[:-1]}, {502})
            self.assert_json_error(*health[-1], 429, AUTH_429)

    def test_message_access_list(self):
        """svc-message-access.conf applies to /message/* only."""
        source = self.tmp / "src"
        shutil.copytree(NGINX_DIR, source / "nginx")
        (source / "nginx" / "snippets" / "svc-message-access.conf").write_text("deny all;\n")
        conf, prefix, port = render_stack(self.tmp, source_dir=source)
        with running_nginx(conf, prefix, port):
            status, resp, data = request(port, "POST", "/message/sendPush", body="{}",
                                         headers={"site-id": "1"})
            self.assert_json_error(status, resp, data, 403, MESSAGE_403)
            for method, path in (("GET", "/health"), ("POST", "/auth/login"), ("GET", "/other")):
                status, _, data = request(port, method, path, body=None if method == "GET" else "{}")
                self.assertEqual((status, data), (502, UNAVAILABLE), path)


if __name__ == "__main__":
    runner.main()

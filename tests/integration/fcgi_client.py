"""A tiny FastCGI client (responder role) for tests that talk to svc-fcgi's
socket directly, without nginx: one request per connection, like nginx with
fastcgi_keep_conn off, or several over one kept connection (exchange()).

    reply = fcgi_client.request("/path/s.sock", "GET", "/health")
    reply.status, reply.headers["content-type"], reply.body, reply.json

    sock = fcgi_client.connect("/path/s.sock")
    reply = fcgi_client.exchange(sock, "GET", "/health")  # FCGI_KEEP_CONN set

Standard library only.
"""

import os
import socket
import struct

from jsonio import parse_json

FCGI_VERSION_1 = 1
FCGI_BEGIN_REQUEST = 1
FCGI_END_REQUEST = 3
FCGI_PARAMS = 4
FCGI_STDIN = 5
FCGI_STDOUT = 6
FCGI_STDERR = 7
FCGI_RESPONDER = 1
REQUEST_ID = 1  # one request per connection


def _record(rtype, content=b"", request_id=REQUEST_ID):
    out = b""
    # Content longer than 65535 bytes is split into several records.
    chunks = [content[i:i + 65535] for i in range(0, len(content), 65535)] or [b""]
    for chunk in chunks:
        pad = (8 - len(chunk) % 8) % 8
        out += struct.pack(">BBHHBx", FCGI_VERSION_1, rtype, request_id, len(chunk), pad) + chunk + b"\0" * pad
    return out


def _length(n):
    return struct.pack(">B", n) if n < 128 else struct.pack(">I", n | 0x80000000)


def encode_params(params):
    out = b""
    for name, value in params.items():
        n, v = name.encode(), str(value).encode()
        out += _length(len(n)) + _length(len(v)) + n + v
    return out


class FcgiReply:
    def __init__(self, stdout, stderr, app_status, protocol_status):
        self.stdout = stdout
        self.stderr = stderr
        self.app_status = app_status
        self.protocol_status = protocol_status
        head, sep, body = stdout.partition(b"\r\n\r\n")
        if not sep:
            head, sep, body = stdout.partition(b"\n\n")
        self.headers = {}
        self.header_lines = []
        for line in head.decode("latin-1").splitlines():
            if ":" in line:
                k, v = line.split(":", 1)
                self.headers[k.strip().lower()] = v.strip()
                self.header_lines.append(line)
        self.status_line = self.headers.get("status", "200 OK")
        self.status = int(self.status_line.split()[0])
        self.body = body
        self.json = parse_json(body)

    def __repr__(self):
        return "FcgiReply(%r, %r)" % (self.status_line, self.body[:300])


def _recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("FastCGI peer closed the connection mid-record")
        buf += chunk
    return buf


def send_begin(sock, params, keep_conn=False):
    """Sends BEGIN_REQUEST and all PARAMS (with the empty terminator)."""
    sock.sendall(_record(FCGI_BEGIN_REQUEST, struct.pack(">HB5x", FCGI_RESPONDER, 1 if keep_conn else 0))
                 + _record(FCGI_PARAMS, encode_params(params)) + _record(FCGI_PARAMS, b""))


def send_stdin(sock, body=b""):
    """Sends the body (if any) and the empty STDIN record that ends it."""
    data = _record(FCGI_STDIN, body) if body else b""
    sock.sendall(data + _record(FCGI_STDIN, b""))


def read_reply(sock):
    """Reads STDOUT/STDERR records until END_REQUEST."""
    stdout, stderr = b"", b""
    while True:
        version, rtype, _rid, length, pad = struct.unpack(">BBHHBx", _recv_exact(sock, 8))
        if version != FCGI_VERSION_1:
            raise ConnectionError("bad FastCGI version %d" % version)
        content = _recv_exact(sock, length)
        _recv_exact(sock, pad)
        if rtype == FCGI_STDOUT:
            stdout += content
        elif rtype == FCGI_STDERR:
            stderr += content
        elif rtype == FCGI_END_REQUEST:
            app_status, protocol_status = struct.unpack(">IB3x", content)
            return FcgiReply(stdout, stderr, app_status, protocol_status)


def connect(socket_path, timeout=10):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(socket_path)
    return sock


STACK_SECRET = object()


def stack_front_secret():
    """The test stack's front secret (scripts/stack.sh writes it to
    $SVC_STACK_DIR/front-secret), or None without a stack."""
    path = os.path.join(os.environ.get("SVC_STACK_DIR", ""), "front-secret")
    if not os.environ.get("SVC_STACK_DIR") or not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read().strip()


def request_params(method, uri, body=b"", params=None, request_id=None, content_length=True,
                   front_secret=STACK_SECRET):
    """The FastCGI parameters nginx would send for this request (see request())."""
    p = {"REQUEST_METHOD": method, "REQUEST_URI": uri, "DOCUMENT_URI": uri.split("?")[0],
         "QUERY_STRING": uri.partition("?")[2], "SERVER_PROTOCOL": "HTTP/1.1", "GATEWAY_INTERFACE": "CGI/1.1",
         "REMOTE_ADDR": "127.0.0.1"}
    if request_id:
        p["REQUEST_ID"] = request_id
    secret = stack_front_secret() if front_secret is STACK_SECRET else front_secret
    if secret is not None:
        p["SVC_FRONT_SECRET"] = secret
    if body:
        p["CONTENT_TYPE"] = "application/json"
        if content_length:
            p["CONTENT_LENGTH"] = str(len(body))
    p.update(params or {})
    return p


def exchange(sock, method, uri, body=b"", keep_conn=True, **options):
    """One request over the open connection `sock`, as nginx sends it with
    fastcgi_keep_conn on (keep_conn=False: off); `options` as request()'s.
    The connection stays open for the next one."""
    if isinstance(body, str):
        body = body.encode()
    send_begin(sock, request_params(method, uri, body, **options), keep_conn=keep_conn)
    send_stdin(sock, body)
    return read_reply(sock)


def request(socket_path, method, uri, body=b"", params=None, request_id=None, content_length=True, timeout=10,
            front_secret=STACK_SECRET):
    """One complete request. `params` adds or overrides FastCGI parameters;
    content_length=False leaves CONTENT_LENGTH out (the app must then rely on
    the STDIN stream's end). Sends SVC_FRONT_SECRET as nginx does: by default
    the stack's (stack_front_secret()), else `front_secret` (None = none)."""
    if isinstance(body, str):
        body = body.encode()
    p = request_params(method, uri, body, params, request_id, content_length, front_secret)
    sock = connect(socket_path, timeout)
    try:
        send_begin(sock, p)
        try:
            send_stdin(sock, body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the app may answer (e.g. 413) before reading the whole body
        return read_reply(sock)
    finally:
        sock.close()

#!/usr/bin/python3
"""HTTP sink for SMS-gateway and web-push tests (standard library only).

    http_sink.py --host 127.0.0.1 --port P --log FILE [--ready-file F]

Every request is appended to FILE as one JSON line, flushed before the reply
is sent (so a client that got its reply can read its line):

    {"method": "POST", "path": "/push/abc?x=1",
     "headers": {"content-type": "...", ...},   # names lower-cased;
                                                # repeated headers joined ", "
     "body_b64": "...",                         # the raw body, base64
     "body": "..." | null}                      # the body as UTF-8, or null

Replies are governed by FILE + ".control.json", re-read per request:
    {"status": 201, "status_queue": [500, 410], "body": {...}, "delay_ms": 0}
status_queue is consumed one code per request (the file is rewritten without
it); when it is empty, "status" applies; without either, 201 for POST and 200
otherwise. The reply body is {"ok":true} unless "body" is given (a string is
sent as is, anything else as JSON). delay_ms delays the reply (timeouts).

Once listening, writes the bound port number to the ready file (atomically)
or prints "ready <port>". --port 0 picks a free port. SIGTERM/SIGINT stop it.
"""

import base64
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sink_common import ControlFile, announce_ready, argument_parser

LOCK = threading.Lock()


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The headers and the body go out in two writes. With Nagle on, the body
    # waits for the ACK of the headers, which a client on a kept-alive
    # connection delays by up to 40 ms: every reused connection (svc's push
    # client keeps one per worker) would look 40 ms slow.
    disable_nagle_algorithm = True
    log_path = None
    control = None  # ControlFile

    def log_message(self, fmt, *args):  # keep stderr quiet
        pass

    def _read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _control(self):
        """Returns (status, body, delay_ms); consumes status_queue. Caller holds LOCK."""
        ctl = self.control.load()
        status = 201 if self.command == "POST" else 200
        if "status" in ctl:
            status = int(ctl["status"])
        queued = self.control.take_first(ctl, "status_queue")
        if queued is not None:
            status = int(queued)
        body = ctl.get("body", {"ok": True})
        if isinstance(body, str):
            body = body.encode()
        else:
            body = json.dumps(body, separators=(",", ":")).encode()
        return status, body, int(ctl.get("delay_ms") or 0)

    def _handle(self):
        body = self._read_body()
        headers = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        line = json.dumps({
            "method": self.command,
            "path": self.path,
            "headers": headers,
            "body_b64": base64.b64encode(body).decode("ascii"),
            "body": text,
        })
        with LOCK:
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(line + "\n")
                f.flush()
            status, reply, delay_ms = self._control()
        if delay_ms > 0:
            time.sleep(delay_ms / 1000.0)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _handle


def main():
    p = argument_parser("HTTP sink logging requests as JSON lines")
    p.add_argument("--log", required=True)
    args = p.parse_args()

    Sink.log_path = os.path.abspath(args.log)
    Sink.control = ControlFile(Sink.log_path + ".control.json")
    os.makedirs(os.path.dirname(Sink.log_path), exist_ok=True)
    open(Sink.log_path, "a").close()

    ThreadingHTTPServer.allow_reuse_address = True
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer((args.host, args.port), Sink)

    def stop(signum, frame):
        # shutdown() blocks until serve_forever returns, so run it elsewhere.
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    announce_ready(args.ready_file, server.server_address[1])
    server.serve_forever(poll_interval=0.1)
    server.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()

"""Closed-loop load against a stack, in one result shape: wrk runs with bench/wrk/arm.lua, and Python clients for the
flows wrk cannot script (a reply's token carried into the next request: mfa_arm.py). Used by bench.py's arms. Stdlib
only.

A result: rps, requests, p50_ms, p99_ms, max_ms, unexpected (replies with another status than expected),
unexpected_statuses ("401=3,502=1"), socket_errors ({connect, read, write, timeout}), and for wrk exhausted (requests
asked for after a "once" file ran out: the thread stopped early, but wrk's duration counts the idle rest).
"""

import json
import selectors
import socket
import statistics
import time
import urllib.parse
from pathlib import Path

ARM_LUA = Path(__file__).resolve().parent / "wrk" / "arm.lua"
SOCKET_ERRORS = ("connect", "read", "write", "timeout")


def wrk_cmd(url, method="GET", file="-", seconds=5, conns=32, prefix="b", expect="2xx", timeout="5s",
            order="random"):
    """wrk -t1 with arm.lua: `file` is "-" (no body) or a request file (dataset.py's format); order "once":
    each line once, in order (pools.py)."""
    seconds = max(1, int(round(float(seconds))))  # wrk takes whole seconds
    return ["wrk", "-t1", f"-c{conns}", f"-d{seconds}s", f"--timeout={timeout}", "--latency", "-s", str(ARM_LUA),
            url, "--", method, str(file), expect, prefix, order]


def parse_wrk(stdout):
    """The result of arm.lua's BENCH line."""
    line = next((l for l in stdout.splitlines() if l.startswith("BENCH ")), None)
    if line is None:
        raise RuntimeError("wrk printed no BENCH line:\n" + stdout)
    raw = json.loads(line[6:])
    lat = raw["latency_us"]
    return {"rps": raw["requests"] / (raw["duration_us"] / 1e6), "requests": raw["requests"],
            "p50_ms": lat["p50"] / 1000, "p99_ms": lat["p99"] / 1000, "max_ms": lat["max"] / 1000,
            "unexpected": raw["unexpected"], "unexpected_statuses": raw["unexpected_statuses"],
            "socket_errors": raw["errors"], "exhausted": raw.get("exhausted", 0)}


class Client:
    """One keep-alive HTTP/1.1 connection on a plain socket (http.client cost 0.19 ms of CPU a request, taken
    from the server's cores; this, 0.06); post() → (status, reply JSON, or its text when it is not JSON), or send()
    and reply() apart. A failed request closes the connection (the next one opens a new one) and raises OSError."""

    def __init__(self, base_url, timeout=30):
        u = urllib.parse.urlsplit(base_url)
        self.addr, self.host, self.timeout, self.sock, self.buf = (u.hostname, u.port), u.netloc, timeout, None, b""

    def post(self, path, body, token=None, headers=None):
        self.send(path, body, token, headers)
        return self.reply()

    def send(self, path, body, token=None, headers=None):
        data = b"" if body is None else json.dumps(body).encode()
        head = {"Host": self.host, "Content-Type": "application/json", "Content-Length": len(data),
                **(headers or {}), **({"Authorization": "Bearer " + token} if token else {})}
        try:
            if self.sock is None:
                self.sock = socket.create_connection(self.addr, self.timeout)
            self.sock.sendall("".join([f"POST {path} HTTP/1.1\r\n", *(f"{k}: {v}\r\n" for k, v in head.items()),
                                       "\r\n"]).encode() + data)
        except OSError:
            self.close()
            raise

    def reply(self):
        try:
            lines = self.take(sep=b"\r\n\r\n").decode("latin-1").split("\r\n")
            status, fields = int(lines[0].split()[1]), {k.strip().lower(): v.strip().lower()
                                                        for k, _, v in (ln.partition(":") for ln in lines[1:])}
            if fields.get("transfer-encoding") == "chunked":  # size line, data, CRLF; "0", CRLF ends it
                raw = b"".join(iter(lambda: self.take(int(self.take(sep=b"\r\n"), 16) + 2)[:-2], b""))
            else:
                raw = self.take(int(fields.get("content-length", 0)))
            if fields.get("connection") == "close":
                self.close()
        except (OSError, ValueError, IndexError) as e:
            self.close()
            raise ConnectionError(f"{self.host}: {e!r}") from e
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode(errors="replace")

    def take(self, n=0, sep=None):
        """The reply's next n bytes, or those up to sep (sep dropped)."""
        while sep not in self.buf if sep else len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buf += chunk
        end, skip = (self.buf.index(sep), len(sep)) if sep else (n, 0)
        out, self.buf = self.buf[:end], self.buf[end + skip:]
        return out

    def close(self):
        if self.sock is not None:
            self.sock.close()
        self.sock, self.buf = None, b""


def closed_loop(flow, clients, seconds):
    """Each of `clients` runs flow() again and again for `seconds`, all in this thread (select() over their
    sockets: a thread per connection cost 0.14 ms of CPU a request, this 0.06). flow() is a generator: it yields
    each request as (path, body), gets its reply as (status, reply) and returns None when the flow went as
    expected, else a label of what did not ("login 429"); an OSError counts as a socket error. A result over
    the flows done within `seconds` (as wrk, those still running then are not counted), each one's latency
    from its start to its end."""
    latencies, unexpected, errors = [], {}, dict.fromkeys(SOCKET_ERRORS, 0)
    deadline, sel = time.monotonic() + float(seconds), selectors.DefaultSelector()

    def run(client, reply=None):  # the flow's next request; a flow that ended is counted and the next begins
        while True:
            try:
                client.send(*(client.flow.throw(reply) if isinstance(reply, OSError) else client.flow.send(reply)))
                return sel.register(client.sock, selectors.EVENT_READ, client)
            except StopIteration as end:
                outcome = end.value
            except OSError:
                outcome = OSError
            now, reply = time.monotonic(), None
            if now > deadline:
                return None
            if outcome is OSError:
                errors["read"] += 1
            elif outcome:
                unexpected[outcome] = unexpected.get(outcome, 0) + 1
            else:
                latencies.append(now - client.began)
            client.flow, client.began = flow(), now

    for client in clients:
        client.flow, client.began = flow(), time.monotonic()
        run(client)
    while sel.get_map() and time.monotonic() < deadline:
        for key, _ in sel.select(max(0.0, deadline - time.monotonic())):
            sel.unregister(key.fileobj)
            try:
                reply = key.data.reply()
            except OSError as e:
                reply = e
            run(key.data, reply)
    sel.close()
    for client in clients:
        client.close()  # the flows still running are dropped
    return latency_result(sorted(latencies), float(seconds), dict(unexpected), dict(errors))


def latency_result(latencies, elapsed, unexpected, socket_errors):
    """A result from sorted latencies (seconds) over `elapsed` seconds."""
    n = len(latencies)
    pct = lambda p: latencies[min(n - 1, int(p * n))] * 1000 if n else None  # noqa: E731
    return {"rps": n / elapsed, "requests": n,
            "p50_ms": statistics.median(latencies) * 1000 if n else None, "p99_ms": pct(0.99),
            "max_ms": latencies[-1] * 1000 if n else None,
            "unexpected": sum(unexpected.values()),
            "unexpected_statuses": ",".join(f"{k}={v}" for k, v in sorted(unexpected.items())),
            "socket_errors": socket_errors}

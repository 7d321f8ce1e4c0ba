"""Closed-loop load against a stack, in one result shape: wrk runs with
bench/wrk/arm.lua, and Python clients for the flows wrk cannot script (a
reply's token carried into the next request: mfa_arm.py). Used by bench.py's
arms. Stdlib only.

A result: rps, requests, p50_ms, p99_ms, max_ms, unexpected (replies with
another status than expected), unexpected_statuses ("401=3,502=1"),
socket_errors ({connect, read, write, timeout}), and for wrk exhausted
(requests asked for after a "once" file ran out: the thread stopped
early, but wrk's duration counts the idle rest).
"""

import http.client
import json
import statistics
import threading
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
    """One keep-alive HTTP/1.1 connection; post() → (status, reply JSON, or
    its text when it is not JSON). A failed request closes the connection
    (the next one opens a new one) and raises."""

    def __init__(self, base_url, timeout=30):
        u = urllib.parse.urlsplit(base_url)
        self.host, self.port, self.timeout = u.hostname, u.port, timeout
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def post(self, path, body, token=None, headers=None):
        head = {"Content-Type": "application/json", **(headers or {})}
        if token:
            head["Authorization"] = "Bearer " + token
        try:
            self.conn.request("POST", path, body=None if body is None else json.dumps(body), headers=head)
            resp = self.conn.getresponse()
            raw = resp.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            raise
        text = raw.decode(errors="replace")
        try:
            return resp.status, json.loads(text)
        except ValueError:
            return resp.status, text

    def close(self):
        self.conn.close()


def post_json(base_url, path, body, headers=None, timeout=30):
    """One POST on a connection of its own: (status, reply)."""
    client = Client(base_url, timeout)
    try:
        return client.post(path, body, headers=headers)
    finally:
        client.close()


def closed_loop(iterations, seconds):
    """One thread per callable in `iterations`, each calling it again and
    again for `seconds`; a call is one iteration (a whole flow, any number of
    requests) and returns None when it went as expected, else a label of what
    did not ("login 429"); an OSError or HTTPException counts as a socket
    error. A result over the iterations done, each one's latency from its
    call to its return."""
    latencies, unexpected, errors = [], {}, dict.fromkeys(SOCKET_ERRORS, 0)
    lock, stop, t0 = threading.Lock(), threading.Event(), time.monotonic()

    def loop(iteration):
        while not stop.is_set():
            t = time.monotonic()
            try:
                bad = iteration()
            except (OSError, http.client.HTTPException):
                bad, t = None, None
            with lock:
                if t is None:
                    errors["read"] += 1
                elif bad:
                    unexpected[bad] = unexpected.get(bad, 0) + 1
                else:
                    latencies.append(time.monotonic() - t)

    threads = [threading.Thread(target=loop, args=(it,), daemon=True) for it in iterations]
    for thread in threads:
        thread.start()
    time.sleep(float(seconds))
    stop.set()
    for thread in threads:
        thread.join()
    with lock:
        return latency_result(sorted(latencies), time.monotonic() - t0, dict(unexpected), dict(errors))


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

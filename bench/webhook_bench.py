#!/usr/bin/python3
"""Webhook figures for issue 40, against a running stack (scripts/stack.sh
up, `make bench`'s stack, or the tests' build-test/itest-stack):

    SVC_STACK_DIR=build-test/itest-stack /usr/bin/python3 bench/webhook_bench.py [--only deliveries|sign-up]
    /usr/bin/python3 bench/webhook_bench.py --markdown RESULTS_JSON   # the benchmarks.md section

1. deliveries: svc-sender one-shot passes delivering --deliveries queued
   user.created events of one endpoint (signed, recorded) to a loopback
   receiver, ÷ bench/webhook_raw.c (a bare libcurl POST loop, one kept-alive
   connection, the same body and headers, no database, no signing) posting
   as many to the same receiver, in the same round (target >= 0.5). The
   receiver is an nginx of its own answering 204 (so neither side waits on
   a slow receiver). It stands for a site on another machine, so it runs
   on its own core (the first) and both senders on the other (the last):
   left to the scheduler, a one-connection ping-pong over loopback runs
   about five times as fast when the kernel happens to put both ends on the
   same core (no cross-core wake-up), which no remote receiver gives; that
   made the floor jump between about 12,000 and 57,000 POSTs/s from run to
   run (docs/decisions.md "Issue 40: the deliveries floor on fixed cores").
   MariaDB, svc-sender's own dependency, is left where it runs.
2. sign-up: POST /auth/sign-up with wrk (--conns connections, unique
   addresses) on site 1 with three endpoints subscribed to user.created and
   session.created ÷ with none (target >= 0.95), interleaved A B B A over
   the rounds. The deliveries those sign-ups queue are not sent meanwhile.

The stack's background sender is stopped while this runs and restarted
after. Makes its own endpoints (and the sign-up arm its own users) and
deletes them at the end. Prints one JSON object.
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))

import svc_stack as S  # noqa: E402
import test_sender as TS  # noqa: E402
from load import wrk  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
TAG = uuid.uuid4().hex[:8]
RAW = os.path.join(REPO, "bench", "out", "bin", "webhook_raw")
EVENTS = "user.created,session.created"
# data of the queued deliveries: what sign-up queues, one user
CORES = os.cpu_count() or 1
RECEIVER_CPU, CLIENT_CPU = 0, (os.cpu_count() or 1) - 1
DATA = '{"site_id":1,"table":"svc_users","user_id":42,"email":"bench@example.com"}'

NGINX_CONF = """daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  keepalive_requests 1000000;
  server {{
    listen 127.0.0.1:{port};
    location / {{ return 204; }}
  }}
}}
"""


def pinned(argv, cpu):
    """argv run on core `cpu` only (taskset; a machine with one core: as is)."""
    return ["taskset", "-c", str(cpu)] + argv if CORES > 1 else argv


def log(msg):
    print("webhook-bench: " + msg, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Receiver:
    """An nginx of its own on a loopback port answering every request 204."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="svc-webhook-receiver-")
        self.port = free_port()
        with open(os.path.join(self.dir, "nginx.conf"), "w") as f:
            f.write(NGINX_CONF.format(dir=self.dir, port=self.port))
        self.proc = subprocess.Popen(pinned(["nginx", "-p", self.dir, "-c", os.path.join(self.dir, "nginx.conf"),
                                             "-e", os.path.join(self.dir, "error.log")], RECEIVER_CPU),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = "http://127.0.0.1:%d/hook" % self.port
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise SystemExit("the receiver's nginx did not start (%s)" % self.dir)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def build_raw():
    """bench/out/bin/webhook_raw (scripts/bench.sh builds it; built here when missing)."""
    if not os.path.exists(RAW):
        os.makedirs(os.path.dirname(RAW), exist_ok=True)
        subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-o", RAW, os.path.join(REPO, "bench", "webhook_raw.c"),
                        "-lcurl"], check=True)
    return RAW


def add_endpoint(url, events):
    out = S.admin("webhook", "add", "--site", "1", "--url", url, "--events", events)
    return int(dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())["endpoint"])


def delete_endpoints(ids):
    for e in ids:
        S.admin("webhook", "delete", str(e), check=False)
    if ids:
        S.sql("DELETE FROM svc_webhook_deliveries WHERE endpoint_id IN (%s)" % ",".join(map(str, ids)))


# --- deliveries ----------------------------------------------------------------------

def queue(endpoint, count, rnd):
    """count due user.created deliveries of `endpoint`, each its own webhook-id."""
    S.sql("INSERT INTO svc_webhook_deliveries (endpoint_id, site_id, msg_id, event_type, data, created_at,"
          " next_attempt_at) SELECT %d, 1, CONCAT('msg_b%s_%d_', s.seq), 'user.created', %s, UNIX_TIMESTAMP(),"
          " UNIX_TIMESTAMP() - 1 FROM seq_1_to_%d s" % (endpoint, TAG, rnd, S.q(DATA), count))


def delivered(endpoint):
    return int(S.sql_value("SELECT COUNT(*) FROM svc_webhook_deliveries WHERE endpoint_id = %d"
                           " AND status = 'delivered'" % endpoint))


def sender_round(endpoint, count, rnd):
    """One svc-sender one-shot pass over `count` due deliveries: deliveries/s over the run's wall time."""
    before = delivered(endpoint)
    queue(endpoint, count, rnd)
    t0 = time.monotonic()
    out = subprocess.run(pinned([TS.SENDER, "--config", S.CONFIG], CLIENT_CPU), capture_output=True, text=True,
                         timeout=600)
    seconds = time.monotonic() - t0
    sent = delivered(endpoint) - before
    return {"delivered": sent, "queued": count, "seconds": seconds, "per_s": sent / seconds,
            "exit": out.returncode, "valid": sent == count}


def raw_round(url, count):
    r = subprocess.run(pinned([RAW, url, str(count)], CLIENT_CPU), capture_output=True, text=True, timeout=600)
    res = json.loads(r.stdout.strip().splitlines()[-1])
    return {"posted": res["ops"], "seconds": res["seconds"], "per_s": res["ops_per_s"],
            "valid": r.returncode == 0 and res["ops"] == count}


def deliveries_arm(receiver, count, rounds):
    endpoint = add_endpoint(receiver.url, "user.created")
    try:
        sender, raw = [], []
        sender_round(endpoint, min(count, 200), 0)  # warm-up: connections, statements
        raw_round(receiver.url, min(count, 200))
        for rnd in range(1, rounds + 1):
            sender.append(sender_round(endpoint, count, rnd))
            raw.append(raw_round(receiver.url, count))
            log("deliveries round %d: svc-sender %.0f/s, bare libcurl %.0f/s"
                % (rnd, sender[-1]["per_s"], raw[-1]["per_s"]))
    finally:
        delete_endpoints([endpoint])
    s, r = statistics.median(x["per_s"] for x in sender), statistics.median(x["per_s"] for x in raw)
    return {"sender": sender, "raw": raw, "sender_per_s": s, "raw_per_s": r, "ratio": s / r if r else None,
            "valid": all(x["valid"] for x in sender + raw), "target": 0.5}


# --- sign-up -------------------------------------------------------------------------

def sign_up_file(tmp):
    path = os.path.join(tmp, "sign-up.txt")
    body = {"email": "whb-%s-{uniq}@example.com" % TAG, "password": "Analytical@1", "firstname": "Ada",
            "lastname": "Lovelace", "appID": 1}
    with open(path, "w") as f:
        f.write("\t" + json.dumps(body) + "\n")
    return path


def sign_up_run(path, seconds, conns, prefix):
    r = wrk("http://127.0.0.1:%d/auth/sign-up" % S.HTTP_PORT, "POST", path, seconds, conns, prefix)
    return {"rps": r["rps"], "requests": r["requests"], "p50_ms": r["p50_ms"], "p99_ms": r["p99_ms"],
            "valid": r["unexpected"] == 0 and sum(r["socket_errors"].values()) == 0 and r["requests"] > 0,
            "unexpected_statuses": r["unexpected_statuses"]}


def sign_up_arm(receiver, seconds, conns, rounds):
    tmp = tempfile.mkdtemp(prefix="svc-webhook-bench-")
    path = sign_up_file(tmp)
    runs = {"none": [], "three": []}
    endpoints = []
    try:
        sign_up_run(path, 1, conns, "whw")  # warm-up
        for rnd in range(1, rounds + 1):
            # A B B A: each side as often first as second in a pair of rounds.
            for side in (("none", "three") if rnd % 2 else ("three", "none")):
                if side == "three" and not endpoints:
                    endpoints = [add_endpoint(receiver.url + "/%d" % i, EVENTS) for i in range(3)]
                if side == "none" and endpoints:
                    delete_endpoints(endpoints)
                    endpoints = []
                runs[side].append(sign_up_run(path, seconds, conns, "wh%s%d" % (side[0], rnd)))
                log("sign-up round %d, endpoints: %s, %.1f/s" % (rnd, side, runs[side][-1]["rps"]))
        queued = int(S.sql_value("SELECT COUNT(*) FROM svc_webhook_deliveries WHERE endpoint_id IN (%s)"
                                 % ",".join(map(str, endpoints)))) if endpoints else None
    finally:
        delete_endpoints(endpoints)
        S.sql("DELETE FROM svc_sessions WHERE user_id IN (SELECT id FROM svc_users WHERE user_email LIKE %s)"
              % S.q("whb-" + TAG + "-%"))
        S.sql("DELETE FROM svc_users WHERE user_email LIKE %s" % S.q("whb-" + TAG + "-%"))
        shutil.rmtree(tmp, ignore_errors=True)
    none, three = (statistics.median(r["rps"] for r in runs[k]) for k in ("none", "three"))
    return {"runs": runs, "none_rps": none, "three_rps": three, "ratio": three / none if none else None,
            "valid": all(r["valid"] for k in runs for r in runs[k]), "conns": conns, "target": 0.95,
            "queued_in_last_three_run": queued}


def run(args):
    had_sender = TS._stop("svc-sender")
    receiver = Receiver()
    result = {"machine_load_at_start": os.getloadavg()[0], "cores": os.cpu_count()}
    try:
        if args.only in ("", "deliveries"):
            build_raw()
            result["deliveries"] = deliveries_arm(receiver, args.deliveries, args.rounds)
        if args.only in ("", "sign-up"):
            result["sign_up"] = sign_up_arm(receiver, args.seconds, args.conns, args.rounds)
    finally:
        receiver.stop()
        if had_sender:
            TS.start_background_sender()
    result["machine_load_at_end"] = os.getloadavg()[0]
    return result


def markdown(path):
    with open(path) as f:
        r = json.load(f)

    def row(label, value, target, valid):
        met = "invalid" if not valid or value is None else ("yes" if value >= target else "**no**")
        return "| %s | %s | >= %s | %s |" % (label, "n/a" if value is None else "%.2f" % value, target, met)

    lines = ["", "## Webhooks (issue 40, bench/webhook_bench.py)", "",
             "Against the same stack; load average %.1f at the start, %.1f at the end, %d cores. Medians."
             % (r["machine_load_at_start"], r["machine_load_at_end"], r["cores"]), "",
             "| row | figure | target | met |", "|---|---|---|---|"]
    d, s = r.get("deliveries"), r.get("sign_up")
    if d:
        lines.append(row("webhook deliveries/s, svc-sender (%.0f/s) ÷ bare libcurl POST loop (%.0f/s), "
                         "same loopback receiver, %d per run" % (d["sender_per_s"], d["raw_per_s"],
                                                                d["sender"][0]["queued"]),
                         d["ratio"], d["target"], d["valid"]))
    if s:
        lines.append(row("sign-up with three subscribed endpoints (%.1f/s) ÷ with none (%.1f/s), %d connections"
                         % (s["three_rps"], s["none_rps"], s["conns"]), s["ratio"], s["target"], s["valid"]))
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--deliveries", type=int, default=2000, help="deliveries per svc-sender run")
    p.add_argument("--seconds", type=float, default=5, help="seconds per sign-up run")
    p.add_argument("--conns", type=int, default=8, help="wrk connections of the sign-up runs")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", choices=["", "deliveries", "sign-up"], default="")
    p.add_argument("--markdown", metavar="RESULTS_JSON")
    args = p.parse_args()
    if args.markdown:
        sys.stdout.write(markdown(args.markdown))
        return
    print(json.dumps(run(args), indent=2))


if __name__ == "__main__":
    main()

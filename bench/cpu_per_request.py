#!/usr/bin/python3
"""CPU per request of one route by process tree (nginx, svc-fcgi with its
workers, mysqld), from /proc/<pid>/stat around a wrk run: the A/B figure
for changes whose cost is in another process than the worker (wake-ups,
SQL) on a shared box, where req/s is noise. Stdlib only; not part of
`make bench`; the numbers in bench/perf-notes.md came from it.

    bench/cpu_per_request.py --bin build-test --route notification --outbound-workers 16
    bench/cpu_per_request.py --bin build-test --route login --conns 8

Starts its own stack (scripts/stack.sh, access log off, sender loop off) in
a temporary directory, makes what the route needs (a notification template;
a user for login and refresh-token), runs wrk for --seconds as a warm-up and then --runs
times, prints one JSON line per run, and always stops the stack.
"""

import argparse
import json
import os
import subprocess
import tempfile
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TCK = os.sysconf("SC_CLK_TCK")
PASSWORD = "Bench@2026!cpu"


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def tree_ticks(root):
    """utime + stime of root and every descendant alive now."""
    pids, todo, total = [], [root], 0
    while todo:
        pid = todo.pop()
        pids.append(pid)
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                todo += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
        except OSError:
            pass
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total


def prepare(route, directory, env, port):
    """The wrk request file line (arm.lua format) and the path of `route`."""
    if route == "notification":
        sh(["mariadb", "--no-defaults", f"--socket={directory}/mysql.sock", "-uroot", "svc"],
           input="INSERT INTO svc_notifications (site_id, event, enabled, subject, content)"
                 " VALUES (1, 'cpu', 1, 'Hi [name]', '<p>Hi [name]</p>');")
        body = {"event": "cpu", "email": "rcpt@example.com", "data": {"name": "Ada"}}
        return f"site-id: 1|x-site-key: {env['SITE_KEY']}\t{json.dumps(body)}", "/message/notification"
    if route in ("login", "refresh-token"):
        reply = urllib.request.urlopen(urllib.request.Request(
            f"http://127.0.0.1:{port}/auth/sign-up", headers={"Content-Type": "application/json"},
            data=json.dumps({"email": "cpu@example.com", "password": PASSWORD, "firstname": "C",
                             "lastname": "P"}).encode()), timeout=60).read()
        if route == "login":
            return "\t" + json.dumps({"email": "cpu@example.com", "password": PASSWORD}), "/auth/login"
        token = json.loads(reply)["token"]
        return "\t" + json.dumps({"payload": {"access_token": token["access_token"],
                                              "refresh_token": token["refresh_token"]}}), "/auth/refresh-token"
    raise SystemExit(f"unknown route {route} (notification, login, refresh-token)")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=str(REPO / "build-test"))
    p.add_argument("--route", default="notification")
    p.add_argument("--outbound-workers", default="16")
    p.add_argument("--conns", type=int, default=32)
    p.add_argument("--seconds", type=int, default=5)
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--setup-sql", default="", help="SQL run on the stack's database before the warm-up (A/B of a schema change)")
    args = p.parse_args()
    directory = tempfile.mkdtemp(prefix="svc-cpu.")
    env = dict(os.environ, SVC_STACK_DIR=directory, SVC_HTTP_PORT="0", SVC_BIN_DIR=os.path.abspath(args.bin),
               SVC_WORKERS="2", SVC_HASHING_WORKERS="2", SVC_OUTBOUND_WORKERS=str(args.outbound_workers),
               SVC_OUTBOUND_PER_SITE="0", SVC_ACCESS_LOG="off", SVC_SENDER_LOOP="0", SVC_MAX_REQUESTS="0")
    stack_sh = str(REPO / "scripts" / "stack.sh")
    try:
        sh([stack_sh, "up"], env=env)
        senv = dict(l.split("=", 1) for l in Path(directory, "env").read_text().splitlines() if "=" in l)
        port = int(senv["SVC_HTTP_PORT"])
        line, path = prepare(args.route, directory, senv, port)
        if args.setup_sql:
            sh(["mariadb", "--no-defaults", f"--socket={directory}/mysql.sock", "-uroot", "svc"], input=args.setup_sql)
        requests = Path(directory, "requests.txt")
        requests.write_text(line + "\n")
        pids = {n: int(Path(directory, "pids", f"{n}.pid").read_text()) for n in ("nginx", "svc-fcgi", "mariadb")}
        wrk = ["wrk", "-t1", f"-c{args.conns}", f"-d{args.seconds}s", "-s", str(REPO / "bench" / "wrk" / "arm.lua"),
               f"http://127.0.0.1:{port}{path}", "--", "POST", str(requests), "2xx", "cpu"]
        subprocess.run(wrk, capture_output=True, check=True)  # warm-up
        for _ in range(args.runs):
            before = {n: tree_ticks(pid) for n, pid in pids.items()}
            out = subprocess.run(wrk, capture_output=True, text=True, check=True).stdout
            after = {n: tree_ticks(pid) for n, pid in pids.items()}
            res = json.loads(next(l for l in out.splitlines() if l.startswith("BENCH "))[6:])
            n = res["requests"]
            print(json.dumps({"route": args.route, "outbound_workers": args.outbound_workers,
                              "req_per_s": round(n / args.seconds), "unexpected": res["unexpected"],
                              "cpu_us_per_request": {k: round((after[k] - before[k]) * 1e6 / TCK / n) for k in pids}}),
                  flush=True)
    finally:
        subprocess.run([stack_sh, "down"], env=env, capture_output=True)
        subprocess.run(["rm", "-rf", directory])


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""CPU per request of one route by process tree (nginx, svc-fcgi with its
workers, mysqld), from /proc/<pid>/stat around a wrk run: the A/B figure
for changes whose cost is in another process than the worker (wake-ups,
SQL) on a shared box, where req/s is noise. Stdlib only; not part of
`make bench`; the numbers in bench/perf-notes.md came from it.

    bench/cpu_per_request.py --bin build-test --route notification --outbound-workers 16
    bench/cpu_per_request.py --bin build-test --route login --conns 8
    bench/cpu_per_request.py --bin build-test --route refresh-token --perf /tmp/prof

oidc-token-code (issue 39) presents a fresh authorization code each time
(oidc_pool.CodePool over the scratch user). refresh-token rotates (issue 37): each request presents a fresh session's
current token (refresh_pool.RefreshPool over the scratch user, arm.lua's
"once" order), as the bench's refresh-token arm does. --perf DIR: also
`perf record -g` the workers and mysqld during each measured run (DIR/run-N.data;
`perf report -i ... --no-children --sort dso,sym`).

Starts a scratch stack (stack.py scratch_stack) with the small data set of
dataset.py scratch_requests (one user, a notification template), runs wrk on
the route's one request for --seconds as a warm-up and then --runs times,
prints one JSON line per run, and always stops the stack.
"""

import argparse
import json
import tempfile
from pathlib import Path

import subprocess

from dataset import request_line, scratch_requests
from load import wrk
from oidc_pool import CodePool
from refresh_pool import RefreshPool
from stack import CLK_TCK, REPO, children, cpu_ticks, proc_table, scratch_stack

ROUTES = ("notification", "login", "refresh-token", "getFolderLimits", "user-email", "oidc-token-code")


STATUS = ("Questions", "Com_select", "Com_insert", "Com_update", "Com_delete", "Com_commit", "Com_stmt_prepare",
          "Com_stmt_execute", "Handler_commit")


def server_status(stack):
    """MariaDB's global counters of STATUS (statements, commits) now."""
    text = stack.sql("SHOW GLOBAL STATUS WHERE Variable_name IN (%s);" % ", ".join("'%s'" % v for v in STATUS))
    return {name: int(value) for name, value in (line.split("\t") for line in text.splitlines() if "\t" in line)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=str(REPO / "build-test"))
    p.add_argument("--route", default="notification", choices=ROUTES)
    p.add_argument("--outbound-workers", default="16")
    p.add_argument("--conns", type=int, default=32)
    p.add_argument("--seconds", type=int, default=5)
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--perf", default="", help="directory for perf record files of each measured run")
    args = p.parse_args()
    with scratch_stack("svc-cpu.", args.bin, SVC_WORKERS="2", SVC_HASHING_WORKERS="2", SVC_MAX_REQUESTS="0",
                       SVC_OUTBOUND_WORKERS=str(args.outbound_workers), SVC_OUTBOUND_PER_SITE="0") as stack, \
            tempfile.TemporaryDirectory(prefix="svc-cpu-req.") as tmp:
        path, body, headers = scratch_requests(stack).get(args.route, ("", {}, {}))
        requests = Path(tmp, "requests.txt")
        requests.write_text(request_line(body, headers) + "\n")
        pids = {n: stack.pid(n) for n in ("nginx", "svc-fcgi", "mariadb")}
        pool = None
        if args.route == "refresh-token":
            user_id = int(stack.sql("SELECT id FROM svc_users WHERE user_email = 'prof@example.com';").strip())
            pool = RefreshPool(stack.config, stack.sql, tmp, "cpu", users=(user_id, 1))
        elif args.route == "oidc-token-code":
            user_id = int(stack.sql("SELECT id FROM svc_users WHERE user_email = 'prof@example.com';").strip())
            path, pool = "/oidc/1/token", CodePool(stack.sql, tmp, "cpu", users=(user_id, 1))

        def request_file():  # written before the measured window: the pool's INSERT is not the route's
            return requests if pool is None else pool.file_for(args.seconds, args.conns)

        def run(file):
            res = wrk(stack.url(path), "POST", file, args.seconds, args.conns, "cpu",
                      order="random" if pool is None else "once")
            if pool is not None:
                pool.observe(res)
            return res

        run(request_file())  # warm-up
        for number in range(args.runs):
            file = request_file()
            if pool is not None:
                pool.settle()
            recorder = None
            if args.perf:
                Path(args.perf).mkdir(parents=True, exist_ok=True)
                traced = children(proc_table(), pids["svc-fcgi"]) + [pids["mariadb"]]
                recorder = subprocess.Popen(["perf", "record", "-g", "-q", "-o", f"{args.perf}/run-{number + 1}.data",
                                             "-p", ",".join(map(str, traced))],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            status0 = server_status(stack)
            before = {n: cpu_ticks([pid]) for n, pid in pids.items()}
            res = run(file)
            after = {n: cpu_ticks([pid]) for n, pid in pids.items()}
            status1 = server_status(stack)
            if recorder is not None:
                recorder.send_signal(2)
                recorder.wait(60)
            n = res["requests"]
            print(json.dumps({"route": args.route, "outbound_workers": args.outbound_workers,
                              "req_per_s": round(res["rps"]), "unexpected": res["unexpected"],
                              "exhausted": res.get("exhausted", 0),
                              "cpu_us_per_request": {k: round((after[k] - before[k]) * 1e6 / CLK_TCK / n)
                                                     for k in pids},
                              "statements_per_request": {k: round((status1[k] - status0[k]) / n, 2)
                                                         for k in status0 if status1[k] != status0[k]}}),
                  flush=True)


if __name__ == "__main__":
    main()

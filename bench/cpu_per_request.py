#!/usr/bin/python3
"""CPU per request of one route by process tree (nginx, svc-fcgi with its
workers, mysqld), from /proc/<pid>/stat around a wrk run: the A/B figure
for changes whose cost is in another process than the worker (wake-ups,
SQL) on a shared box, where req/s is noise. Stdlib only; not part of
`make bench`; the numbers in bench/perf-notes.md came from it.

    bench/cpu_per_request.py --bin build-test --route notification --outbound-workers 16
    bench/cpu_per_request.py --bin build-test --route login --conns 8

Starts a scratch stack (stack.py scratch_stack) with the small data set of
dataset.py scratch_requests (one user, a notification template), runs wrk on
the route's one request for --seconds as a warm-up and then --runs times,
prints one JSON line per run, and always stops the stack.
"""

import argparse
import json
import tempfile
from pathlib import Path

from dataset import request_line, scratch_requests
from load import wrk
from stack import CLK_TCK, REPO, cpu_ticks, scratch_stack

ROUTES = ("notification", "login", "refresh-token", "getFolderLimits", "user-email")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=str(REPO / "build-test"))
    p.add_argument("--route", default="notification", choices=ROUTES)
    p.add_argument("--outbound-workers", default="16")
    p.add_argument("--conns", type=int, default=32)
    p.add_argument("--seconds", type=int, default=5)
    p.add_argument("--runs", type=int, default=2)
    args = p.parse_args()
    with scratch_stack("svc-cpu.", args.bin, SVC_WORKERS="2", SVC_HASHING_WORKERS="2", SVC_MAX_REQUESTS="0",
                       SVC_OUTBOUND_WORKERS=str(args.outbound_workers), SVC_OUTBOUND_PER_SITE="0") as stack, \
            tempfile.TemporaryDirectory(prefix="svc-cpu-req.") as tmp:
        path, body, headers = scratch_requests(stack)[args.route]
        requests = Path(tmp, "requests.txt")
        requests.write_text(request_line(body, headers) + "\n")
        pids = {n: stack.pid(n) for n in ("nginx", "svc-fcgi", "mariadb")}

        def run():
            return wrk(stack.url(path), "POST", requests, args.seconds, args.conns, "cpu")

        run()  # warm-up
        for _ in range(args.runs):
            before = {n: cpu_ticks([pid]) for n, pid in pids.items()}
            res = run()
            after = {n: cpu_ticks([pid]) for n, pid in pids.items()}
            n = res["requests"]
            print(json.dumps({"route": args.route, "outbound_workers": args.outbound_workers,
                              "req_per_s": round(res["rps"]), "unexpected": res["unexpected"],
                              "cpu_us_per_request": {k: round((after[k] - before[k]) * 1e6 / CLK_TCK / n)
                                                     for k in pids}}), flush=True)


if __name__ == "__main__":
    main()

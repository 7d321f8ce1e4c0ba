#!/usr/bin/python3
"""Instructions per request of svc-fcgi, route by route, with callgrind: a
figure that does not move with the machine's load, for A/B decisions on a
shared box (wall-clock req/s there is noise). Stdlib only; not part of
`make bench`.

    bench/callgrind_routes.py --bin build-test [--requests 300] [--routes refresh-token,getFolderLimits]

Starts a scratch stack (stack.py scratch_stack: one worker per pool,
[server] max_requests = --requests) with the small data set of dataset.py
scratch_requests, and replaces svc-fcgi by `valgrind --tool=callgrind
svc-fcgi` (the workers are forked under it), counters zeroed when a worker
enters its request loop (FCGX_InitRequest), so its start-up is not counted.
Per route it sends --requests requests one after the other through nginx;
the worker that served them recycles right after the last one and callgrind
writes its file at exit: instructions / requests, the first (cold) requests
included. The time-bounded caches (site, user rows, signing keys, templates:
1-5 s) are hit less often under valgrind than at full speed, so the figures
are an upper bound; compare them only with each other. Prints one JSON line
per route and leaves the files in --out (callgrind_annotate reads them).
Always stops the stack.
"""

import argparse
import json
import os
import re
import subprocess
import time
from pathlib import Path

from dataset import scratch_requests
from load import Client
from stack import REPO, scratch_stack


def wait_for(done, seconds, what):
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit(f"callgrind_routes: {what}")
        time.sleep(0.1)


def instructions(files):
    total = 0
    for f in files:
        for line in open(f, errors="replace"):
            m = re.match(r"^(?:summary|totals):\s+(\d+)", line)
            if m:
                total += int(m.group(1))
                break
    return total


def under_callgrind(stack, bin_dir, out):
    """svc-fcgi under callgrind instead of the plain one (its pid file then names valgrind)."""
    pidfile = stack.dir / "pids" / "svc-fcgi.pid"
    old = int(pidfile.read_text())
    os.kill(old, 15)
    wait_for(lambda: not os.path.exists(f"/proc/{old}"), 30, "svc-fcgi did not stop")
    for sock in stack.dir.glob("svc-fcgi*.sock"):
        sock.unlink()
    log = open(stack.dir / "svc-fcgi-callgrind.log", "w")
    vg = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg.%p",
                           "--zero-before=FCGX_InitRequest", os.path.join(bin_dir, "svc-fcgi"),
                           "--config", str(stack.config)], stdout=log, stderr=subprocess.STDOUT)
    pidfile.write_text(str(vg.pid))
    wait_for(lambda: len(list(stack.dir.glob("svc-fcgi*.sock"))) >= 3, 120, "svc-fcgi under valgrind did not start")


def count_route(stack, out, name, request, count, seen):
    """`count` requests of one route, then the instructions of the worker that served them."""
    path, body, headers = request
    client = Client(stack.url(""), timeout=120)
    bad = sum(client.post(path, body, headers=headers)[0] != 200 for _ in range(count))
    # the worker recycles after exactly `count` and callgrind writes its file at exit
    dumps = []

    def dumped():
        dumps[:] = sorted(set(out.glob("cg.*")) - seen)
        return dumps and not any(os.path.exists(f"/proc/{f.name.rsplit('.', 1)[1]}") for f in dumps)

    wait_for(dumped, 60, f"{name}: no complete callgrind file")
    seen |= set(dumps)
    total = instructions(dumps)
    for f in dumps:
        f.rename(out / f"{name}.{f.name}")
    return {"route": name, "requests": count, "non_200": bad, "instructions": total,
            "instructions_per_request": round(total / count)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=str(REPO / "build-test"))
    p.add_argument("--requests", type=int, default=300)
    p.add_argument("--routes", default="refresh-token,getFolderLimits,notification,user-email")
    p.add_argument("--out", default=str(REPO / "bench" / "out" / "callgrind"))
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for f in out.glob("cg.*"):
        f.unlink()
    with scratch_stack("svc-callgrind.", args.bin, SVC_WORKERS="1", SVC_HASHING_WORKERS="1",
                       SVC_OUTBOUND_WORKERS="1", SVC_MAX_REQUESTS=str(args.requests)) as stack:
        requests = scratch_requests(stack)
        under_callgrind(stack, args.bin, out)
        seen = set(out.glob("cg.*"))
        for name in args.routes.split(","):
            print(json.dumps(count_route(stack, out, name, requests[name], args.requests, seen)), flush=True)


if __name__ == "__main__":
    main()

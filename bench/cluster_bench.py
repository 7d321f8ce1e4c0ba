#!/usr/bin/python3
"""The cluster arm of `make bench` (issue 11, docs/cluster.md), against a
running local cluster (scripts/cluster.sh up):

    SVC_CLUSTER_DIR=.cluster /usr/bin/python3 bench/cluster_bench.py [--seconds 5] [--rounds 3]
    /usr/bin/python3 bench/cluster_bench.py --markdown RESULTS_JSON   # the benchmarks.md section

refresh-token and notification through the front nginx whose upstreams hold
both app hosts, and through a second front nginx (cluster.sh front PORT 1)
whose upstreams hold app host 1 only; same cluster, same run, arms
interleaved per round, medians reported. The senders are stopped while it
runs (they would compete for the CPU) and started again after. Every wrk
run is bounded by --seconds. Prints one JSON object.

On one machine with 2 cores the two app hosts share the same CPUs as the
Galera nodes and nginx: the ratio shows the overhead of the second host
(more processes, Galera replication to more appliers), not a speed-up.
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from dataset import refresh_body, request_line
from load import post_json, wrk
from stack import REPO, read_env

ARMS = {"refresh-token": "/auth/refresh-token", "notification": "/message/notification"}


def cluster(cluster_dir, *args):
    return subprocess.run([str(REPO / "scripts" / "cluster.sh")] + [str(a) for a in args],
                          env=dict(os.environ, SVC_CLUSTER_DIR=cluster_dir), capture_output=True, text=True,
                          timeout=300, check=True).stdout


def request_files(env, tmp):
    """arm.lua request files: refresh-token with the tokens of 8 sign-ups,
    notification of the demo site's welcome-email to varying recipients."""
    pairs = []
    for i in range(8):
        status, reply = post_json(env["FRONT_URL"], "/auth/sign-up", {
            "email": "bench-%s-%d@example.com" % (os.urandom(4).hex(), i), "password": "Bench@2026!x",
            "firstname": "B", "lastname": "C", "appID": 1})
        assert status == 200, (status, reply)
        pairs.append(request_line(refresh_body(reply["token"])))
    site = {"site-id": env["SITE_ID"], "x-site-key": env["SITE_KEY"]}
    notes = [request_line({"event": "welcome-email", "email": "rcpt%d@example.com" % i, "data": {"name": "Ada"}},
                          site) for i in range(500)]
    files = {}
    for name, lines in (("refresh-token", pairs), ("notification", notes)):
        files[name] = Path(tmp) / (name + ".txt")
        files[name].write_text("\n".join(lines) + "\n")
    return files


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run(args):
    env = read_env(Path(args.cluster_dir) / "cluster.env")
    one_port = free_port()
    cluster(args.cluster_dir, "front", one_port, "1")
    fronts = {"two-hosts": env["FRONT_URL"], "one-host": "http://127.0.0.1:%d" % one_port}
    hosts = [int(n) for n in env["APP_HOSTS"].split()]
    for n in hosts:
        cluster(args.cluster_dir, "kill-sender", n)
    try:
        with tempfile.TemporaryDirectory(prefix="svc-cluster-bench-") as tmp:
            files = request_files(env, tmp)
            samples = {arm: {f: [] for f in fronts} for arm in ARMS}
            for rnd in range(args.rounds):
                for arm in ARMS:
                    for front, url in fronts.items():
                        samples[arm][front].append(wrk(url + ARMS[arm], "POST", files[arm], args.seconds,
                                                       args.conns, "c%d%s" % (rnd, front[0])))
    finally:
        for n in hosts:
            cluster(args.cluster_dir, "start-sender", n)
    result = {"seconds": args.seconds, "rounds": args.rounds, "conns": args.conns,
              "app_workers_per_pool": int(os.environ.get("SVC_CLUSTER_WORKERS", "2")),
              "cores": os.cpu_count(), "arms": samples, "ratio_two_over_one": {}}
    for arm in ARMS:
        two = statistics.median(s["rps"] for s in samples[arm]["two-hosts"])
        one = statistics.median(s["rps"] for s in samples[arm]["one-host"])
        result["ratio_two_over_one"][arm] = two / one
    return result


def markdown(path):
    r = json.load(open(path))
    out = ["", "## Cluster: two app hosts vs one (Galera, 3 nodes)", "",
           "`bench/cluster_bench.py` against `scripts/cluster.sh` (docs/cluster.md): requests through the",
           "front nginx whose upstreams hold both app hosts, and through a second front holding app host 1",
           "only; same cluster, same run, medians of %d rounds of %d s, %d connections; every node, host and"
           % (r["rounds"], r["seconds"], r["conns"]),
           "nginx share %s cores, so a second host adds processes and replication work, not CPU: the"
           % r["cores"],
           "ratio measures overhead, not scale-out.", "",
           "| arm | two hosts (req/s) | one host (req/s) | two ÷ one | unexpected replies (two / one) |",
           "|---|---:|---:|---:|---:|"]
    for arm in ARMS:
        two, one = r["arms"][arm]["two-hosts"], r["arms"][arm]["one-host"]
        out.append("| %s | %.0f | %.0f | **%.2f** | %d / %d |" % (
            arm, statistics.median(s["rps"] for s in two), statistics.median(s["rps"] for s in one),
            r["ratio_two_over_one"][arm], sum(s["unexpected"] for s in two), sum(s["unexpected"] for s in one)))
    print("\n".join(out))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--markdown", metavar="RESULTS_JSON")
    p.add_argument("--cluster-dir", default=os.environ.get("SVC_CLUSTER_DIR", os.path.join(REPO, ".cluster")))
    p.add_argument("--seconds", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--conns", type=int, default=16)
    args = p.parse_args()
    if args.markdown:
        return markdown(args.markdown)
    print(json.dumps(run(args), indent=1))


if __name__ == "__main__":
    sys.exit(main())

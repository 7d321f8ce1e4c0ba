#!/usr/bin/python3
"""The cluster arm of `make bench` (issue 42, docs/cluster.md), against a
running local cluster (scripts/cluster.sh up):

    SVC_CLUSTER_DIR=.cluster /usr/bin/python3 bench/cluster_bench.py [--seconds 5] [--rounds 3]
    /usr/bin/python3 bench/cluster_bench.py --markdown RESULTS_JSON   # the benchmarks.md section

The write ceiling: sign-up, refresh-token with rotation and notification
through the front on three Galera nodes, then on one node (nodes 2 and 3
stopped cleanly, so the cluster shrinks to one node and keeps quorum;
started again after, they rejoin by IST). Per arm: req/s, the Galera
certification failures and brute-force aborts of the run
(wsrep_local_cert_failures + wsrep_local_bf_aborts over the running nodes)
and the transactions svc retried (db_transaction_retry lines in the app
hosts' logs), per 1,000 requests. (Two app hosts against one was measured
too until issue 52: docs/benchmarks-history.md.)

The senders are stopped while it runs (they would compete for the CPU) and
started again after. Every wrk run is bounded by --seconds.

On one machine with 2 cores the app hosts share the same CPUs as the Galera
nodes and nginx: the ratios show the overhead of replication (more
processes, certification, appliers), not a speed-up.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from dataset import request_line
from load import wrk
from pools import RefreshPool
from stack import REPO, read_env

CEILING_ARMS = {"sign-up": "/auth/sign-up", "refresh-token": "/auth/refresh-token",
                "notification": "/message/notification"}
BENCH_USER_BASE = 900_000   # the rotating refresh tokens' users: ids BENCH_USER_BASE + 1 ... + BENCH_USERS
BENCH_USERS = 200
SIGN_UPS_PER_SECOND = 1_000  # lines of a sign-up file per second of a run: far above what Argon2id allows on 2 cores


def cluster(cluster_dir, *args, timeout=300):
    return subprocess.run([str(REPO / "scripts" / "cluster.sh")] + [str(a) for a in args],
                          env=dict(os.environ, SVC_CLUSTER_DIR=cluster_dir), capture_output=True, text=True,
                          timeout=timeout, check=True).stdout


def node_sql(env, node, query):
    """Runs SQL on DB node `node` (its unix socket) → stdout (tab-separated rows)."""
    r = subprocess.run(["mariadb", "--no-defaults", f"--socket={env[f'DB{node}_SOCKET']}", "-uroot", "-N", "-B", "svc"],
                       input="SET time_zone = '+00:00';\n" + query, capture_output=True, text=True, timeout=120,
                       check=True)
    return r.stdout


def galera_aborts(env, nodes):
    """Certification failures plus brute-force aborts, summed over `nodes`."""
    total = 0
    for n in nodes:
        out = node_sql(env, n, "SHOW GLOBAL STATUS WHERE Variable_name IN "
                               "('wsrep_local_cert_failures', 'wsrep_local_bf_aborts');")
        total += sum(int(line.split("\t")[1]) for line in out.splitlines() if line.strip())
    return total


def app_retries(env):
    """db_transaction_retry lines in every app host's svc-fcgi log so far."""
    count = 0
    for n in env["APP_HOSTS"].split():
        log = Path(env["SVC_CLUSTER_DIR"]) / f"app{n}" / "svc-fcgi.log"
        if log.exists():
            count += log.read_text(errors="replace").count("db_transaction_retry")
    return count


class Files:
    """Request files of the arms: sign-ups of fresh addresses (each line once),
    rotating refresh tokens (RefreshPool, each once), notifications of the
    demo site's welcome-email to varying recipients."""

    def __init__(self, env, tmp):
        self.env, self.tmp, self.batch = env, Path(tmp), 0
        node_sql(env, 1, f"""
DELETE FROM svc_sessions WHERE user_id > {BENCH_USER_BASE} AND user_id <= {BENCH_USER_BASE + BENCH_USERS};
DELETE FROM svc_users WHERE id > {BENCH_USER_BASE} AND id <= {BENCH_USER_BASE + BENCH_USERS};
INSERT INTO svc_users (id, user_email, password, first_name, last_name, primary_role)
  SELECT {BENCH_USER_BASE} + seq, CONCAT('cluster-bench', seq, '@example.com'), 'unused', 'Bench', 'User', 'user'
  FROM seq_1_to_{BENCH_USERS};
""")
        self.pool = RefreshPool(env["APP1_CONFIG"], lambda q: node_sql(env, 1, q), self.tmp, "clb",
                                users=(BENCH_USER_BASE + 1, BENCH_USERS))
        site = {"site-id": env["SITE_ID"], "x-site-key": env["SITE_KEY"]}
        self.notes = self.tmp / "notification.txt"
        self.notes.write_text("\n".join(request_line({"event": "welcome-email", "email": "rcpt%d@example.com" % i,
                                                      "data": {"name": "Ada"}}, site) for i in range(500)) + "\n")

    def sign_ups(self, seconds):
        self.batch += 1
        tag = os.urandom(4).hex()
        path = self.tmp / "sign-up.txt"
        path.write_text("\n".join(request_line({
            "email": f"cb-{tag}-{self.batch}-{i}@example.com", "password": "Bench@2026!x", "firstname": "B",
            "lastname": "C", "appID": 1}) for i in range(int(SIGN_UPS_PER_SECOND * seconds))) + "\n")
        return str(path)

    def run(self, arm, url, seconds, conns, prefix):
        """One wrk run of `arm` against the front `url` → its result."""
        if arm == "sign-up":
            return wrk(url + CEILING_ARMS[arm], "POST", self.sign_ups(seconds), seconds, conns, prefix, order="once")
        if arm == "refresh-token":
            res = wrk(url + CEILING_ARMS[arm], "POST", self.pool.file_for(seconds, conns), seconds, conns, prefix,
                      order="once")
            self.pool.observe(res)
            return res
        return wrk(url + CEILING_ARMS[arm], "POST", str(self.notes), seconds, conns, prefix)


def counted_run(env, files, nodes, arm, url, args, prefix):
    """A run with the Galera aborts and svc's retries it caused."""
    aborts, retries = galera_aborts(env, nodes), app_retries(env)
    res = files.run(arm, url, args.seconds, args.conns, prefix)
    res["galera_aborts"] = galera_aborts(env, nodes) - aborts
    res["svc_retries"] = app_retries(env) - retries
    return res


def ceiling_runs(env, files, args):
    nodes = [int(n) for n in env["DB_NODES"].split()]
    url = env["FRONT_URL"]
    samples = {arm: {"three-nodes": [], "one-node": []} for arm in CEILING_ARMS}
    sizes = {}
    for label, running in (("three-nodes", nodes), ("one-node", nodes[:1])):
        if label == "one-node":
            for n in nodes[1:]:
                cluster(args.cluster_dir, "stop-db", n)
            for arm in CEILING_ARMS:   # the workers whose node went away reconnect: not measured
                files.run(arm, url, 2, args.conns, "warm")
        sizes[label] = int(node_sql(env, 1, "SHOW GLOBAL STATUS LIKE 'wsrep_cluster_size';").split()[1])
        for rnd in range(args.rounds):
            for arm in CEILING_ARMS:
                samples[arm][label].append(counted_run(env, files, running, arm, url, args, f"w{rnd}{label[0]}"))
    for n in nodes[1:]:
        cluster(args.cluster_dir, "start-db", n, timeout=600)
    ratio = {arm: statistics.median(s["rps"] for s in samples[arm]["three-nodes"])
             / statistics.median(s["rps"] for s in samples[arm]["one-node"]) for arm in CEILING_ARMS}
    return {"arms": samples, "cluster_size": sizes, "ratio_three_over_one": ratio}


def run(args):
    env = read_env(Path(args.cluster_dir) / "cluster.env")
    hosts = [int(n) for n in env["APP_HOSTS"].split()]
    for n in hosts:
        cluster(args.cluster_dir, "kill-sender", n)
    try:
        with tempfile.TemporaryDirectory(prefix="svc-cluster-bench-") as tmp:
            files = Files(env, tmp)
            result = {"seconds": args.seconds, "rounds": args.rounds, "conns": args.conns,
                      "app_workers_per_pool": int(os.environ.get("SVC_CLUSTER_WORKERS", "2")),
                      "cores": os.cpu_count()}
            result["ceiling"] = ceiling_runs(env, files, args)
    finally:
        for n in hosts:
            cluster(args.cluster_dir, "start-sender", n)
    return result


def per_thousand(samples, key):
    requests = sum(s["requests"] for s in samples)
    return 1000.0 * sum(s.get(key, 0) for s in samples) / requests if requests else 0.0


def markdown(path):
    r = json.load(open(path))
    out = []
    ceiling = r.get("ceiling")
    if ceiling:
        sizes = ceiling["cluster_size"]
        out += ["", "## Cluster: the write ceiling, three Galera nodes vs one (issue 42)", "",
                "`bench/cluster_bench.py` against `scripts/cluster.sh`: writes through the front nginx (both app",
                "hosts) on the three-node cluster (wsrep_cluster_size %d), then with nodes 2 and 3 stopped cleanly"
                % sizes["three-nodes"],
                "(wsrep_cluster_size %d; they rejoin by IST after); medians of %d rounds of %d s, %d connections."
                % (sizes["one-node"], r["rounds"], r["seconds"], r["conns"]),
                "Aborts: Galera certification failures and brute-force aborts over the running nodes; retries:",
                "transactions svc ran again (`db_transaction_retry`); both per 1,000 requests. Everything shares",
                "%s cores, so three nodes cost replication work on the same CPUs." % r["cores"], "",
                "| arm | three nodes (req/s) | one node (req/s) | three ÷ one | aborts / 1,000 (three / one) "
                "| retries / 1,000 (three / one) | unexpected replies (three / one) |",
                "|---|---:|---:|---:|---:|---:|---:|"]
        for arm, ratio in ceiling["ratio_three_over_one"].items():
            three, one = ceiling["arms"][arm]["three-nodes"], ceiling["arms"][arm]["one-node"]
            out.append("| %s | %.0f | %.0f | **%.2f** | %.2f / %.2f | %.2f / %.2f | %d / %d |" % (
                arm, statistics.median(s["rps"] for s in three), statistics.median(s["rps"] for s in one), ratio,
                per_thousand(three, "galera_aborts"), per_thousand(one, "galera_aborts"),
                per_thousand(three, "svc_retries"), per_thousand(one, "svc_retries"),
                sum(s["unexpected"] for s in three), sum(s["unexpected"] for s in one)))
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

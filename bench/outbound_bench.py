#!/usr/bin/python3
"""Outbound-pool figures for issue 17 (isolation), against a running stack
(scripts/stack.sh up, `make bench`'s stack, or the tests' build/itest-stack):

    SVC_STACK_DIR=build/itest-stack /usr/bin/python3 bench/outbound_bench.py [--seconds 5] [--rounds 3]
    /usr/bin/python3 bench/outbound_bench.py --markdown RESULTS_JSON   # the benchmarks.md section

1. push-slow: sendPush against the stack's push sink told to answer each
   push 100 ms late (delay_ms), with as many concurrent clients as the
   outbound pool has workers, each client pushing for its own site (so the
   per-site cap never refuses one). Counted are the pushes the sink
   received per second. Target >= 0.8 x (workers / 0.1 s).
2. refresh-token alone, and while 64 clients keep pushing to a loopback
   "black hole" (accepts TCP, never answers), spread over 16 sites: the
   ratio of refresh-token throughput (target >= 0.8), its p99 (target
   < 20 ms) and its non-2xx replies (target 0). Both measured with wrk in the
   same round, interleaved.
3. idle memory of the outbound pool's workers: RSS, PSS and USS
   (Private_Clean + Private_Dirty) from /proc/PID/smaps_rollup, fresh and
   after the load (target <= 8 MiB per worker; USS is what one more worker
   costs).

Makes its own sites (bench-ob-*) and customers and removes them at the end.
Prints one JSON object.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))

import svc_stack as S  # noqa: E402
from refresh_pool import RefreshPool  # noqa: E402
from load import Client, ClosedLoop, wrk  # noqa: E402
from test_outbound_isolation import BlackHole, stack_config  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
TAG = uuid.uuid4().hex[:8]
SITES = 16
DEMO = {"email": "demo@example.com", "password": "Demo@2026!", "appID": 1}
CONTROL = os.path.join(S.STACK_DIR, "push.log.control.json")


def subscription_keys():
    """p256dh and auth of one subscription (bench/out/bin/push_raw if built, else node)."""
    raw = os.path.join(REPO, "bench", "out", "bin", "push_raw")
    if os.path.exists(raw):
        return subprocess.run([raw, "subscription"], capture_output=True, text=True, check=True).stdout.split()
    from test_push import ua
    keys = ua("keygen")
    return keys["p256dh"], keys["auth"]


def make_sites(hole_port, push_port):
    """SITES sites with VAPID keys, each with one black-holed customer and one
    at the push sink; returns [(site, hole_customer, sink_customer)]."""
    p256dh, auth = subscription_keys()
    out = []
    for i in range(SITES):
        sid = S.admin("site", "create", "--user-pool", "default", "--name", "bench-ob-%d-%s" % (i, TAG), "--vapid-subject",
                      "mailto:ops@example.com", "--api-key", "none", "--disable-email", "true").stdout.strip().splitlines()[-1]
        S.admin("vapid-keys", "--site", sid)
        ids = []
        for kind, endpoint in (("hole", "http://127.0.0.1:%d/hole/%d" % (hole_port, i)),
                               ("sink", "http://127.0.0.1:%d/push/ob-%s-%d" % (push_port, TAG, i))):
            rows = S.sql("INSERT INTO svc_customers (site_id, name, pushsubscription, p256dh, auth) VALUES "
                         "(%s, %s, %s, %s, %s); SELECT LAST_INSERT_ID();"
                         % (sid, S.q("bench-ob-%s-%s-%d" % (kind, TAG, i)), S.q(endpoint), S.q(p256dh), S.q(auth)))
            ids.append(int(rows[-1][0]))
        out.append((int(sid), ids[0], ids[1]))
    return out


def drop_sites():
    S.sql("DELETE FROM svc_customers WHERE name LIKE %s" % S.q("bench-ob-%-" + TAG + "-%"))
    S.sql("DELETE FROM svc_sites WHERE name LIKE %s" % S.q("bench-ob-%-" + TAG))


def push_request(site, customer):
    """(headers, body) of a sendPush to one customer of a site."""
    token = S.admin("mint-customer-id", "--customer", str(customer), "--ttl", "2h").stdout.strip()
    return {"site-id": str(site)}, {"customerID": token, "title": "Hi", "message": "Bench"}


def refresh(pool, conns, seconds):
    """refresh-token with wrk, each request a fresh session's token (rotation); non_2xx and socket_errors
    as counts."""
    r = wrk("http://127.0.0.1:%d/auth/refresh-token" % S.HTTP_PORT, "POST", pool.file_for(seconds, conns), seconds,
            conns, "ob", order="once")
    pool.observe(r)
    return dict(r, non_2xx=r["unexpected"], socket_errors=sum(r["socket_errors"].values()))


def pushes(requests, timeout):
    """A ClosedLoop of sendPush requests, one client each; a non-2xx reply is labelled with its start."""
    def iteration(client, headers, body):
        status, reply = client.post("/message/sendPush", body, headers=headers)
        return None if 200 <= status < 300 else "%d %s" % (status, str(reply)[:40])

    clients = [(Client("http://127.0.0.1:%d" % S.HTTP_PORT, timeout), h, b) for h, b in requests]
    return ClosedLoop([lambda c=c, h=h, b=b: iteration(c, h, b) for c, h, b in clients])


def sink_lines():
    try:
        with open(os.path.join(S.STACK_DIR, "push.log"), "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def push_slow(lines, seconds):
    """Pushes per second the sink received while it answers each 100 ms late."""
    S.set_sink_control(CONTROL, {"delay_ms": 100})
    try:
        before = sink_lines()
        load = pushes(lines, timeout=30)
        time.sleep(1)  # ramp-up, not counted
        start_lines, t0 = sink_lines(), time.monotonic()
        time.sleep(seconds)
        end_lines, t1 = sink_lines(), time.monotonic()
        replies = load.stop()
        return {"delivered_per_s": (end_lines - start_lines) / (t1 - t0), "clients": len(lines),
                "replies": {k: replies[k] for k in ("requests", "unexpected_statuses", "socket_errors")},
                "sink_lines": end_lines - before}
    finally:
        S.set_sink_control(CONTROL, {})


def refresh_pool(out_dir):
    """Fresh sessions of the demo user for each refresh-token run (bench/refresh_pool.py): tokens rotate."""
    demo = int(S.sql("SELECT id FROM svc_users WHERE user_email = '%s'" % DEMO["email"])[0][0])
    return RefreshPool(os.path.join(S.STACK_DIR, "svc.conf"), S.sql, out_dir, "bob", users=(demo, 1))


def refresh_under_black_hole(pool, hole_lines, seconds, conns):
    alone = refresh(pool, conns, seconds)
    flood = pushes(hole_lines, timeout=60)
    time.sleep(1.5)  # every outbound worker is at the black hole by now
    under = refresh(pool, conns, seconds)
    flood.stop(wait=False)
    return {"alone": alone, "under_black_hole": under, "flood_clients": len(hole_lines),
            "ratio": under["rps"] / alone["rps"] if alone["rps"] else None, "flood": flood}


def outbound_worker_pids():
    """Children of svc-fcgi that hold the outbound socket (matched by inode)."""
    path = stack_config().get("server", "outbound_socket", fallback="")
    inodes = set()
    with open("/proc/net/unix") as f:
        for line in f.readlines()[1:]:
            parts = line.split()
            if len(parts) >= 8 and parts[7] == path:
                inodes.add("socket:[%s]" % parts[6])
    with open(os.path.join(S.STACK_DIR, "pids", "svc-fcgi.pid")) as f:
        master = int(f.read())
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/stat" % pid) as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) != master:
                    continue
            fds = {os.readlink("/proc/%s/fd/%s" % (pid, fd)) for fd in os.listdir("/proc/%s/fd" % pid)}
        except OSError:
            continue
        if fds & inodes:
            pids.append(int(pid))
    return pids


def memory(pids):
    """Median RSS, PSS and USS (KiB) of the processes."""
    rows = []
    for pid in pids:
        try:
            with open("/proc/%d/smaps_rollup" % pid) as f:
                text = f.read()
        except OSError:
            continue
        v = {k: int(n) for k, n in re.findall(r"^(\w+):\s+(\d+) kB", text, re.M)}
        rows.append({"rss": v["Rss"], "pss": v["Pss"], "uss": v["Private_Clean"] + v["Private_Dirty"]})
    if not rows:
        return None
    return {k: statistics.median(r[k] for r in rows) for k in ("rss", "pss", "uss")} | {"workers": len(rows)}


def run(seconds, rounds, conns, out_dir):
    conf = stack_config()
    workers = int(conf.get("server", "outbound_workers", fallback="0") or 0)
    if not conf.get("server", "outbound_socket", fallback=""):
        raise SystemExit("the stack has no outbound pool ([server] outbound_socket)")
    hole = BlackHole()
    result = {"outbound_workers": workers, "per_site": conf.get("outbound", "per_site", fallback="4"),
              "memory_fresh_kib": memory(outbound_worker_pids())}
    try:
        sites = make_sites(hole.port, int(S.ENV["SVC_PUSH_PORT"]))
        sink = [push_request(s, c) for s, _, c in sites]
        # 64 clients, 4 per site: the per-site cap (4) refuses none of them.
        holed = [push_request(s, h) for s, h, _ in sites] * 4
        refresh = refresh_pool(out_dir)
        slow_clients = [sink[i % len(sink)] for i in range(workers)]
        result["push_slow"], result["refresh"] = [], []
        for _ in range(rounds):
            result["push_slow"].append(push_slow(slow_clients, seconds))
            r = refresh_under_black_hole(refresh, holed, seconds, conns)
            flood = r.pop("flood")
            result["refresh"].append(r)
            # Let the black-holed pushes run out ([push] timeout_ms) before the next round.
            flood.stop()
        time.sleep(1)
        result["memory_after_kib"] = memory(outbound_worker_pids())
    finally:
        hole.stop()
        drop_sites()
    slow = statistics.median(r["delivered_per_s"] for r in result["push_slow"])
    ratio = statistics.median(r["ratio"] for r in result["refresh"])
    p99 = statistics.median(r["under_black_hole"]["p99_ms"] for r in result["refresh"])
    bad = sum(r["under_black_hole"]["non_2xx"] + r["under_black_hole"]["socket_errors"] for r in result["refresh"])
    result["summary"] = {
        "push_slow_per_s": slow, "push_slow_target": 0.8 * workers / 0.1,
        "refresh_ratio": ratio, "refresh_p99_ms": p99, "refresh_non_2xx": bad,
        "idle_uss_kib": (result["memory_fresh_kib"] or {}).get("uss"),
        "idle_pss_kib": (result["memory_fresh_kib"] or {}).get("pss"),
        "idle_rss_kib": (result["memory_fresh_kib"] or {}).get("rss"),
    }
    return result


def markdown(path):
    with open(path) as f:
        r = json.load(f)
    s = r["summary"]
    fresh, after = r.get("memory_fresh_kib") or {}, r.get("memory_after_kib") or {}

    def mib(kib):
        return "%.1f" % (kib / 1024) if kib is not None else "n/a"

    def ok(good):
        return "yes" if good else "**no**"

    lines = [
        "",
        "## Outbound pool (issue 17, bench/outbound_bench.py)",
        "",
        "Against the same stack: %d outbound workers, `[outbound] per_site` = %s. Medians of %d rounds."
        % (r["outbound_workers"], r["per_site"], len(r["refresh"])),
        "",
        "| row | figure | target | met |",
        "|---|---|---|---|",
        "| push, sink answering after 100 ms, %d clients (one site each) | %.1f pushes/s | >= %.0f (0.8 x %d / 0.1 s) | %s |"
        % (r["outbound_workers"], s["push_slow_per_s"], s["push_slow_target"], r["outbound_workers"],
           ok(s["push_slow_per_s"] >= s["push_slow_target"])),
        "| refresh-token while 64 clients push to a black hole ÷ alone | %.2f | >= 0.8 | %s |"
        % (s["refresh_ratio"], ok(s["refresh_ratio"] >= 0.8)),
        "| refresh-token p99 while 64 clients push to a black hole | %.1f ms | < 20 ms | %s |"
        % (s["refresh_p99_ms"], ok(s["refresh_p99_ms"] < 20)),
        "| refresh-token non-2xx / socket errors under the black hole | %d | 0 | %s |"
        % (s["refresh_non_2xx"], ok(s["refresh_non_2xx"] == 0)),
        "| outbound worker idle memory, USS (PSS, RSS) | %s MiB (%s, %s) | <= 8 MiB | %s |"
        % (mib(fresh.get("uss")), mib(fresh.get("pss")), mib(fresh.get("rss")),
           ok(fresh.get("uss") is not None and fresh["uss"] <= 8 * 1024)),
        "| the same after the load | %s MiB (%s, %s) | | |"
        % (mib(after.get("uss")), mib(after.get("pss")), mib(after.get("rss"))),
        "",
    ]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--markdown", metavar="RESULTS_JSON", help="print the benchmarks.md section of a saved run")
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--conns", type=int, default=32, help="wrk connections for refresh-token")
    p.add_argument("--out", default=os.path.join(REPO, "bench", "out"))
    args = p.parse_args()
    if args.markdown:
        print(markdown(args.markdown))
        return
    os.makedirs(args.out, exist_ok=True)
    print(json.dumps(run(args.seconds, args.rounds, args.conns, args.out), indent=2))


if __name__ == "__main__":
    main()

"""The mixed-traffic arm of `make bench`: an open loop at fixed offered rates (not a closed loop like wrk), svc then
the PHP-FPM peer with the same seeds, BENCH_MIX_RUNS times in a row: 60 % refresh-token, 10 % login, 10 %
notification, 10 % getFolderLimits, 5 % user-email, 5 % request-pass, with svc-sender draining the outbox meanwhile.
The requests go out from bench/mix_load.cpp (one thread, epoll, kept HTTP/1.1 connections to nginx, a few µs of CPU a
request); each step reports who spent the CPU.

Request i of a step is due at start + i / rate whatever happened before it; its latency runs from that due time to
the end of its reply (no coordinated omission). A step passes when every route's p99 stays under 50 ms (login, on the
Argon2id pool: 250 ms), nothing but 2xx came back, and the generator kept the schedule. A 429 is the hashing pool's
bounded queue refusing a request at once (nginx `limit_conn svc_hashing`): counted apart as "shed", not a failure
while it is at most SHED_LIMIT of the route's requests, and left out of the p99. Rates are tried in ascending order
until a step fails; the highest passing rate is the sustainable one.
"""

import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

from dataset import parse_line
from php_peer import PeerRefreshPool
from pools import RefreshPool
from stack import CLK_TCK, group_ticks, log

ROUTES = [  # name, path, share in percent
    ("refresh-token", "/auth/refresh-token", 60),
    ("login", "/auth/login", 10),
    ("notification", "/message/notification", 10),
    ("getFolderLimits", "/auth/getFolderLimits", 10),
    ("user-email", "/auth/user-email", 5),
    ("request-pass", "/auth/request-pass", 5),
]
SLOW_ROUTES = {"login"}  # served by the Argon2id pool
P99_LIMIT_MS = 50.0
SLOW_P99_LIMIT_MS = 250.0
# bench/mix_load.cpp: at most 512 kept connections, 10 s per request.
SHED_LIMIT = 0.01  # at most 1 % of a route's requests refused with 429 by the hashing queue
MAX_GENERATOR_LAG_MS = 20.0  # p99 of (send time - due time) above this: the generator, not the server, fell behind


def load_requests(files):
    """{route: [(header lines, body bytes)]} from the wrk arms' request files (routes without one: none;
    svc's refresh-token comes from a RefreshPool per step instead)."""
    out = {}
    for name, _, _ in ROUTES:
        if name not in files:
            continue
        lines = [parse_line(line) for line in Path(files[name]).read_text().splitlines() if line.strip()]
        out[name] = [("".join(f"{k}: {v}\r\n" for k, v in headers.items()), body.encode()) for headers, body in lines]
    return out


def percentile(sorted_values, q):
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def write_plan(path, port, requests, rate, seconds, seed, pools=None):
    """The plan bench/mix_load.cpp runs: every (route, request) as a whole HTTP/1.1 request, and the schedule of blob
    indices, drawn with the seed. pools: {route: RefreshPool}: that route's requests are a new batch of fresh
    sessions, one blob each, scheduled once each in order (a rotating refresh token is current only until its first
    use). Returns the route name of each scheduled request.
    """
    rng = random.Random(seed)
    names = [n for n, _, _ in ROUTES]
    weights = [w for _, _, w in ROUTES]
    paths = {n: p for n, p, _ in ROUTES}

    def blob(n, headers, body):
        return (f"POST {paths[n]} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n{headers}\r\n").encode() + body

    blobs, first = [], {}
    for n in names:
        first[n] = len(blobs)
        blobs += [blob(n, headers, body) for headers, body in requests.get(n, [])]
    total = int(rate * seconds)
    # Exactly each route's share (the largest remainders rounded up), in an order drawn with the seed: the
    # same seed gives svc and the peer the same sequence of routes.
    counts = [total * w // 100 for w in weights]
    for i in sorted(range(len(names)), key=lambda i: -(total * weights[i] % 100))[:total - sum(counts)]:
        counts[i] += 1
    routes = [n for n, c in zip(names, counts) for _ in range(c)]
    rng.shuffle(routes)
    fresh = {n: iter(pool.new_batch(max(1, routes.count(n)))) for n, pool in (pools or {}).items()}
    schedule = []
    for n in routes:
        if n in fresh:
            blobs.append(blob(n, "", next(fresh[n]).encode()))
            schedule.append(len(blobs) - 1)
        else:
            schedule.append(first[n] + rng.randrange(len(requests[n])))
    with open(path, "wb") as f:
        f.write(f"{port} {rate} {len(blobs)} {total}\n".encode())
        for b in blobs:
            f.write(f"{len(b)}\n".encode() + b)
        f.write("\n".join(map(str, schedule)).encode() + b"\n")
    return routes


def run_step(tool, plan, routes, rate, seconds):
    """Runs a written plan (write_plan; `routes` its return) and sums it up per route."""
    with tempfile.TemporaryDirectory(prefix="svc-mix-") as tmp:
        out = Path(tmp) / "results"
        started = time.monotonic()
        subprocess.run([str(tool), str(plan), str(out)], check=True, timeout=seconds + 60)
        elapsed = time.monotonic() - started - 0.2  # the tool starts its schedule 200 ms in
        rows = [tuple(map(int, line.split())) for line in out.read_text().splitlines()]
    names = [n for n, _, _ in ROUTES]
    latencies = {n: [] for n in names}
    statuses = {n: {} for n in names}
    lags = []
    for name, (status, latency_us, lag_us) in zip(routes, rows):
        if status != 429:
            latencies[name].append(latency_us / 1000)
        statuses[name][status] = statuses[name].get(status, 0) + 1
        lags.append(lag_us / 1000)
    total = len(routes)
    routes = {}
    ok = True
    for n in names:
        lat = sorted(latencies[n])
        shed = statuses[n].get(429, 0)
        non2xx = sum(c for s, c in statuses[n].items() if not 200 <= s < 300 and s != 429)
        p99 = percentile(lat, 0.99)
        limit = SLOW_P99_LIMIT_MS if n in SLOW_ROUTES else P99_LIMIT_MS
        requests = len(lat) + shed
        route_ok = bool(lat) and non2xx == 0 and shed <= SHED_LIMIT * requests and p99 < limit
        ok = ok and route_ok
        routes[n] = {"requests": requests, "non_2xx": non2xx, "shed": shed,
                     "statuses": {str(k): v for k, v in statuses[n].items()},
                     "p50_ms": percentile(lat, 0.5), "p99_ms": p99, "p999_ms": percentile(lat, 0.999),
                     "p99_limit_ms": limit, "ok": route_ok}
    lag_p99 = percentile(sorted(lags), 0.99) or 0.0
    generator_ok = lag_p99 <= MAX_GENERATOR_LAG_MS
    return {"rate": rate, "seconds": seconds, "requests": total, "achieved_rps": total / elapsed if elapsed else 0,
            "generator_lag_p99_ms": lag_p99, "generator_ok": generator_ok, "ok": ok and generator_ok,
            "routes": routes}


def machine_busy_ticks():
    """Busy clock ticks of all CPUs together (/proc/stat: all but idle and iowait)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields) - fields[3] - fields[4]


def own_and_reaped_cpu():
    """CPU seconds of this process and its reaped children (mix_load)."""
    return sum(os.times()[:4])  # user, system, children's user and system


def cpu_breakdown(groups, run):
    """Runs run() and returns (its result, {group: CPU cores used}): each
    group's process trees (group_ticks), the generator (this process) and the
    rest of the machine, so a step shows who spent the two cores."""
    t0, busy0, gen0, ticks0 = time.monotonic(), machine_busy_ticks(), own_and_reaped_cpu(), group_ticks(groups)
    result = run()
    wall = time.monotonic() - t0
    ticks1 = group_ticks(groups)
    cores = {name: (ticks1[name] - ticks0[name]) / CLK_TCK / wall for name in groups}
    cores["generator"] = (own_and_reaped_cpu() - gen0) / wall
    cores["rest"] = max(0.0, (machine_busy_ticks() - busy0) / CLK_TCK / wall - sum(cores.values()))
    return result, {k: round(v, 3) for k, v in cores.items()}


def search(tool, port, requests, rates, seconds, label, seed, groups=None, pools=None):
    """Every rate in order until one fails: (steps, sustainable rate or 0).
    groups: {name: [root pids]} whose CPU each step reports; pools: write_plan's."""
    steps = []
    for i, rate in enumerate(rates):
        log(f"mix {label}: {rate} req/s offered for {seconds} s (open loop, sender draining)")
        with tempfile.TemporaryDirectory(prefix="svc-mix-plan-") as tmp:
            plan = Path(tmp) / "plan"  # written before the step's clock and CPU accounting start
            routes = write_plan(plan, port, requests, rate, seconds, seed + i, pools)
            step, cores = cpu_breakdown(groups or {}, lambda: run_step(tool, plan, routes, rate, seconds))
        step["cpu_cores"] = cores
        steps.append(step)
        worst = max(step["routes"].items(), key=lambda kv: (kv[1]["p99_ms"] or 0) / kv[1]["p99_limit_ms"])
        log(f"  achieved {step['achieved_rps']:.0f} req/s, worst p99 {worst[0]} {worst[1]['p99_ms']:.1f} ms, "
            f"non-2xx {sum(r['non_2xx'] for r in step['routes'].values())}, "
            f"shed {sum(r.get('shed', 0) for r in step['routes'].values())}, generator lag p99 "
            f"{step['generator_lag_p99_ms']:.1f} ms: {'pass' if step['ok'] else 'FAIL'}")
        log("  CPU cores: " + ", ".join(f"{k} {v:.2f}" for k, v in cores.items()))
        if not step["ok"]:
            break
        time.sleep(2)  # let queues and the outbox settle between steps
    return steps, max((s["rate"] for s in steps if s["ok"]), default=0)


def run_mix(stack, files, rates, seconds, peer=None, runs=1):
    """`runs` consecutive comparisons, each svc's rate search then the
    PHP-FPM peer's (peer: {"port", "files", "rates", "children", "pids"}, or
    {"error"} when it failed its check) with the same seeds, so the same
    sequence of routes at each rate; one svc-sender drains the outbox for
    both (the peer writes the same outbox). Both sides' refresh tokens rotate:
    fresh sessions per step (RefreshPool, php_peer.PeerRefreshPool)."""
    sender = subprocess.Popen([str(stack.bin / "svc-sender"), "--config", str(stack.config), "--loop", "1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = []
    try:
        groups = {"svc-fcgi": [stack.pid("svc-fcgi")], "mariadb": [stack.pid("mariadb")],
                  "nginx": [stack.pid("nginx")], "svc-sender": [sender.pid], "smtp-sink": [stack.pid("smtp-sink")]}
        tool = stack.helpers / "mix_load"
        pools = {"refresh-token": RefreshPool(stack.config, stack.sql, stack.dir, "bmix")}
        peer_pools = {"refresh-token": PeerRefreshPool(stack, stack.dir, "pmix")} if peer else None
        for k in range(runs):
            seed = 1000 * (k + 1)
            steps, sustainable = search(tool, stack.http_port, load_requests(files), rates, seconds,
                                        f"svc, run {k + 1} of {runs}", seed, groups, pools)
            php = None
            if peer and "error" in peer:
                php = {"steps": [], "sustainable_rate": 0, "error": peer["error"]}
            elif peer:
                time.sleep(2)
                php_groups = {g: pids for g, pids in groups.items() if g != "svc-fcgi"}
                php_groups["php-fpm"] = list(peer.get("pids", []))
                php_steps, php_rate = search(tool, peer["port"], load_requests(peer["files"]), peer["rates"],
                                             seconds, f"PHP-FPM, run {k + 1} of {runs}", seed, php_groups,
                                             peer_pools)
                php = {"steps": php_steps, "sustainable_rate": php_rate, "rates": peer["rates"],
                       "children": peer["children"], "error": None}
            results.append({"steps": steps, "sustainable_rate": sustainable, "peer": php})
    finally:
        sender.terminate()
        try:
            sender.wait(timeout=30)
        except subprocess.TimeoutExpired:
            sender.kill()
    # What the sender had not sent yet must not be sent by the arms after this one.
    left = int(stack.sql("SELECT COUNT(*) FROM svc_notification_log WHERE status = 'Pending';").strip() or 0)
    stack.sql("UPDATE svc_notification_log SET status = 'Failed' WHERE status = 'Pending';")
    return {"outbox_pending_after": left, "mix": {n: w for n, _, w in ROUTES}, "p99_limit_ms": P99_LIMIT_MS,
            "slow_p99_limit_ms": SLOW_P99_LIMIT_MS, "shed_limit": SHED_LIMIT, "slow_routes": sorted(SLOW_ROUTES),
            "runs": results}


def step_rows(steps):
    """The per-route table rows of a rate search."""
    fmt = lambda v: "–" if v is None else f"{v:.2f}"  # noqa: E731
    lines = []
    for s in steps:
        verdict = "pass" if s["ok"] else ("FAIL (generator lag)" if not s["generator_ok"] else "FAIL")
        for n, r in s["routes"].items():
            lines.append(f"| {s['rate']} | {n} | {r['requests']} | {fmt(r['p50_ms'])} | {fmt(r['p99_ms'])} | "
                         f"{fmt(r['p999_ms'])} | {r['non_2xx']} | {r.get('shed', 0)} | {verdict} |")
    return lines


TABLE_HEAD = ["| offered req/s | route | requests | p50 ms | p99 ms | p99.9 ms | non-2xx | shed (429) | step |",
              "|---:|---|---:|---:|---:|---:|---:|---:|---|"]


def run_ratio(run):
    """svc's sustainable rate ÷ the PHP-FPM peer's in one run, and a note: (None, why) when there is
    none. When the peer passed none of its rates, its lowest rate bounds it from above, so svc ÷ that
    rate is a lower bound."""
    peer, svc = run.get("peer") or {}, run["sustainable_rate"]
    if peer.get("error") or not peer.get("steps"):
        return None, "the PHP-FPM peer did not run" + (f": {peer['error']}" if peer.get("error") else "")
    if not svc:
        return None, "svc passed none of its rates (a loaded machine? see the generator lag)"
    php = peer["sustainable_rate"]
    last = run["steps"][-1]
    return svc / (php or peer["rates"][0]), "; ".join(why for why, hit in (
        ("svc passed all its rates", svc == last["rate"] and last["ok"]),
        ("PHP-FPM passed all its rates: the real limit is higher", php and php == peer["rates"][-1]),
        ("lower bound: PHP-FPM passed none of its rates", not php)) if hit)


def peer_summary(run):
    """The sentence on one run's PHP-FPM peer's sustainable rate and the ratio."""
    if not run.get("peer"):
        return "No PHP-FPM peer ran (BENCH_MIX_PHP_RATES empty): no comparison row."
    value, note = run_ratio(run)
    ratio = "–" if value is None else f"{value:.2f}"
    return (f"PHP-FPM peer's sustainable rate: **{run['peer']['sustainable_rate']} req/s**; svc ÷ PHP-FPM = "
            f"**{ratio}** (target ≥ 3){'; ' + note if note else ''}.")


def cpu_rows(steps):
    """Who spent the CPU in each step (cpu_breakdown), in cores of the machine."""
    names = []
    for s in steps:
        names += [k for k in (s.get("cpu_cores") or {}) if k not in names]
    if not names:
        return []
    lines = ["", "CPU by process group, in cores (the machine has " + str(os.cpu_count()) + "; `rest` is everything "
             "else that ran, e.g. the kernel's own threads):", "",
             "| offered req/s | " + " | ".join(names) + " | total |", "|---:|" + "---:|" * (len(names) + 1)]
    for s in steps:
        c = s.get("cpu_cores") or {}
        lines.append(f"| {s['rate']} | " + " | ".join(f"{c[n]:.2f}" if n in c else "–" for n in names) +
                     f" | {sum(c.values()):.2f} |")
    return lines


def render_markdown(mix):
    runs = (mix or {}).get("runs") or []
    if not runs:
        return []
    lines = ["", "## Mixed traffic, open loop", "",
             f"{len(runs)} consecutive runs, each svc's rate search then the PHP-FPM peer's with the same seeds "
             "(the same sequence of routes at each rate, each route exactly its share): " +
             ", ".join(f"{w} % {n}" for n, w in mix["mix"].items()) + "; offered rates in ascending order, "
             "each for the same number of seconds, requests due at fixed times whatever the replies do "
             "(bench/mix.py, sent by bench/mix_load.cpp: one thread, epoll, kept connections to nginx); "
             "svc-sender drains the outbox meanwhile. Both sides rotate every refresh token. "
             f"A step passes when every route's p99 is under {mix['p99_limit_ms']:.0f} ms "
             f"({', '.join(mix['slow_routes'])}: {mix['slow_p99_limit_ms']:.0f} ms), every reply is 2xx (but for "
             f"429s of the hashing pool's bounded queue, shown as shed: at most {mix['shed_limit'] * 100:.0f} % "
             "of a route's requests, left out of its p99) and the generator kept its schedule; the search stops "
             "at the first failing step. The peer (bench/php-peer/: plain PHP 8.2, one front controller, PDO "
             "with a persistent connection, password_verify of the same Argon2id hashes, a session row rotated "
             "by one conditional UPDATE, ES256 access and HS256 refresh tokens) runs under PHP-FPM, "
             "`pm = static`, opcache on, behind the same nginx with svc's FastCGI parameters. It does less than "
             "svc per request (no login throttle, audit rows, caches or second factor).",
             "", f"Mails still queued when the last step ended: {mix.get('outbox_pending_after', 0)}."]
    for k, run in enumerate(runs, 1):
        peer = run.get("peer") or {}
        lines += ["", f"### Run {k} of {len(runs)}", "",
                  f"svc's sustainable rate: **{run['sustainable_rate']} req/s**. " + peer_summary(run), "",
                  "svc:", ""] + TABLE_HEAD + step_rows(run["steps"]) + cpu_rows(run["steps"])
        if peer.get("steps"):
            lines += ["", f"PHP-FPM peer ({peer['children']} children):", ""]
            lines += TABLE_HEAD + step_rows(peer["steps"]) + cpu_rows(peer["steps"])
    return lines

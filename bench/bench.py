#!/usr/bin/python3
"""The benchmark run behind `make bench` (started by scripts/bench.sh, which builds everything, starts the stack and
the floor programs, and always stops them). Stdlib only.

Loads the data set, warms up, runs every arm of arms.py build_arms (the one table: name, request, floor, target)
interleaved over the rounds with its floors (static, hello, the write floors, raw Argon2id), the sender rounds, the
mix against the PHP-FPM peer and the breached-list rows, and writes bench/results.json and docs/benchmarks.md
(report.py).

The other parts: stack.py (the running stack and /proc accounting), dataset.py (the data set and the request files),
load.py (wrk and the Python clients' closed loop), mfa_arm.py and user_search_arm.py (arms wrk cannot script alone),
pools.py (requests good once: rotating refresh tokens, authorization codes), mix.py (the mixed-traffic arm),
php_peer.py (the PHP-FPM peer) and breached_rows.py. This file only runs them in order.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

from arms import build_arms, only_arms, pick_argon2_floor, run_arm, run_paired, run_sender_rounds
from breached_rows import ENTRIES as BREACHED_ENTRIES, measure_breached
from dataset import load_data
from mix import run_mix
from php_peer import prepare as prepare_php_peer
from report import (DOC, RESULTS, add_mix_ratio, assemble, breached_ratios, render_markdown, render_only, render_table,
                    write_only_results)
from stack import LogTail, Stack, children, log, proc_table, status_kib


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--stack", required=True)
    p.add_argument("--bin", required=True)
    p.add_argument("--helpers", required=True)
    p.add_argument("--floor-pids", required=True)  # a file: the pids of hello's and hello_db's masters
    p.add_argument("--bench-port", type=int, required=True)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--conns", type=int, default=32)
    p.add_argument("--hash-conns", type=int, default=8)
    p.add_argument("--mails", type=int, default=1000)
    p.add_argument("--tls-smtp-port", type=int, default=0)
    p.add_argument("--warmup", type=float, default=1)
    p.add_argument("--out", required=True)
    # For iterating on one endpoint: only these arms (comma-separated) and
    # their floors, no sender runs; results go to --out only.
    p.add_argument("--only", default="")
    # The mixed-traffic open-loop arm (bench/mix.py): seconds per offered
    # rate (0 = skip it) and the rates, tried in order until one fails.
    p.add_argument("--mix-seconds", type=float, default=60)
    p.add_argument("--mix-rates", default="250,500,750,1000,1250,1500,1750,2000")
    p.add_argument("--mix-runs", type=int, default=3)  # consecutive svc-then-peer comparisons
    # The PHP-FPM peer (bench/php_peer.py): the nginx port in front of it
    # (0 = not started), its offered rates in the mix ("" = no mix) and its pool size.
    p.add_argument("--php-port", type=int, default=0)
    p.add_argument("--php-rates", default="")
    p.add_argument("--php-children", type=int, default=0)
    p.add_argument("--php-pid", type=int, default=0)  # its php-fpm master, for the CPU breakdown
    return p.parse_args()


def worker_rss(stack, tail):
    """{worker pid: (VmRSS KiB, pool)} of the svc-fcgi workers now."""
    return {pid: (status_kib(pid, "VmRSS"), tail.pools.get(pid, "?"))
            for pid in children(proc_table(), stack.pid("svc-fcgi"))}


def run_rounds(stack, args, arms, tail, roots, flood):
    """Every arm once per round, interleaved A B C ... so they share the
    rounds' conditions; returns {arm name: [result per round]}."""
    secs = int(args.seconds) if float(args.seconds).is_integer() else args.seconds
    runs = {a.name: [] for a in arms}
    names = {a.name for a in arms}
    # arm name: the arms alternating with it, a raw floor first (right after the arm's slice)
    paired = {n: sorted((a for a in arms if a.paired_with == n), key=lambda a: a.kind != "raw") for n in names}

    def show(a, res):
        runs[a.name].append(res)
        lat = "" if res["p50_ms"] is None else f"  p50 {res['p50_ms']:7.2f} ms  p99 {res['p99_ms']:7.2f} ms"
        how = f"  ({res['slices']} alternating slices)" if res.get("slices") else ""
        log(f"  {a.name:34s} {res['rps']:9.1f} {'ops' if a.kind == 'raw' else 'req'}/s{lat}{how}"
            f"{'' if res['valid'] else '  INVALID ' + res['unexpected_statuses'] + ' ' + str(res['socket_errors'])}")

    for rnd in range(1, args.rounds + 1):
        log(f"round {rnd}/{args.rounds}: {len(arms)} arms x {secs}s")
        for a in arms:
            prefix = f"r{rnd}-{a.name}"
            if a.paired_with in names:
                continue  # measured in its partner's turn
            if paired[a.name]:
                results = run_paired(stack, a, paired[a.name], args.seconds, a.conns or args.conns, prefix, tail, roots)
                for arm, res in zip([a, *paired[a.name]], results):
                    show(arm, res)
                continue
            show(a, run_arm(stack, a, args.seconds, a.conns or args.conns, prefix, tail, roots, flood))
    return runs


def php_peer(stack, args, files):
    """The PHP-FPM peer (its php-refresh-token arm, and its part of the mix:
    bench/mix.py run_mix), after its check; None when scripts/bench.sh did
    not start it, {"error"} when it answered wrongly."""
    if not args.php_port:
        return None
    try:
        prepare_php_peer(stack, args.php_port, files)
    except (RuntimeError, OSError) as e:
        log(f"PHP-FPM peer skipped: {e}")
        return {"error": str(e)}
    return {"port": args.php_port, "files": files, "rates": [int(r) for r in args.php_rates.split(",") if r],
            "children": args.php_children, "pids": [args.php_pid] if args.php_pid else []}


def mix_arm(stack, args, files, peer):
    """The mixed-traffic arm: svc's rate search, then the PHP-FPM peer's
    when scripts/bench.sh started it for the mix (--php-rates)."""
    return run_mix(stack, files, [int(r) for r in args.mix_rates.split(",")], args.mix_seconds,
                   peer if args.php_rates else None, args.mix_runs)


def write_part(out, name, part):
    """--only mix or breached: that part's results to out/NAME.json only."""
    (out / f"{name}.json").write_text(json.dumps(part, indent=2) + "\n")
    log(f"wrote {out / name}.json")


def measure_all(stack, args, out):
    """Every part of a full run, in order: assemble's results, or None for --only (its own output)."""
    started = time.monotonic()
    if args.only == "breached":
        b = measure_breached(stack.helpers, out, args.rounds)
        return write_part(out, "breached", {"breached": b, "ratios": breached_ratios(b)})
    files, password_hash, proto, counts = load_data(stack, out)
    tail = LogTail(stack, out / "svc-fcgi-problems.log")
    roots = {"nginx": [stack.pid("nginx")], "svc-fcgi": [stack.pid("svc-fcgi")], "mariadb": [stack.pid("mariadb")],
             "floors": stack.floor_pids, "php-fpm": [args.php_pid] if args.php_pid else []}
    peer = php_peer(stack, args, files)
    if args.only == "mix":
        return write_part(out, "mix", mix_arm(stack, args, files, peer))
    log("argon2id implementations, verifies/s in the login floor's loop (bench/argon2_impls.cpp)")
    fastest, loop_rates = pick_argon2_floor(stack, password_hash, os.cpu_count())
    arms, flood = build_arms(stack, args, files, password_hash, fastest, os.cpu_count(), peer)
    if args.only:
        arms = only_arms(arms, args.only.split(","))
    # Warm-up: every arm once, short (connections, prepared statements, caches, the client arms' users).
    log(f"warm-up: {len(arms)} arms x {args.warmup}s")
    for a in arms:
        if a.kind != "raw":
            run_arm(stack, a, args.warmup, a.conns or args.conns, f"w-{a.name}", tail, roots, flood)
    time.sleep(1)
    idle_rss = worker_rss(stack, tail)
    runs = run_rounds(stack, args, arms, tail, roots, flood)
    if args.only:
        return write_only_results(out, arms, runs)
    mail = run_sender_rounds(stack, args, proto)
    mix = None
    if args.mix_seconds > 0:
        try:
            mix = mix_arm(stack, args, files, peer)
        except Exception as e:  # noqa: BLE001 - the other arms' results still count
            log(f"mix arm failed: {e!r}")
    time.sleep(0.5)
    results = assemble(args, stack, arms, runs, mail, (idle_rss, worker_rss(stack, tail)), counts,
                       password_hash, time.monotonic() - started)
    results["argon2_impls"] = {"fastest": fastest, "loop_verifies_per_s": loop_rates}
    if BREACHED_ENTRIES:
        results["breached"] = measure_breached(stack.helpers, out, args.rounds)
        results["ratios"] += breached_ratios(results["breached"])
    results["mix"] = mix
    add_mix_ratio(results)
    return results


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--render-only":
        return render_only(RESULTS, DOC)
    args = parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stack = Stack(args.stack, args.bin, args.helpers, args.bench_port, args.floor_pids)
    results = measure_all(stack, args, out)
    if not results:
        return None  # --only: nothing committed is rewritten
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    DOC.write_text(render_markdown(results))
    log(f"wrote {RESULTS} and {DOC} ({results['run_seconds']:.0f}s)")
    print(render_table(results))
    return None


if __name__ == "__main__":
    main()

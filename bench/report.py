"""The benchmark's results: the JSON of a run (assemble), the ratios against
their floors and targets, and docs/benchmarks.md (render_markdown). Part of
bench/bench.py; stdlib only.
"""

import datetime
import json
import os
import re
import statistics
from pathlib import Path

from arms import summarize
from dataset import CUSTOMERS
from mix import render_markdown as mix_markdown
from stack import REPO

def render_only(results, doc):
    """Rewrites docs/benchmarks.md from bench/results.json (after editing
    bench/profile-notes.md or this renderer), without running anything."""
    r = json.loads(Path(results).read_text())
    Path(doc).write_text(render_markdown(r))


def write_only_results(args, out, arms, runs):
    """--only: medians and same-run ratios to stdout and out/only.json; the
    committed results and docs/benchmarks.md stay as they are."""
    summary = {a.name: summarize(runs[a.name]) for a in arms}
    lines = []
    for a in arms:
        s = summary[a.name]
        ratio = ""
        if a.floor and summary.get(a.floor, {}).get("rps"):
            ratio = f"  {a.name} ÷ {a.floor} = {s['rps'] / summary[a.floor]['rps']:.2f}" + (
                f" (target {a.target})" if a.target else "")
        cpu = f"  {s['cpu_us_per_req']:.0f} µs CPU/req" if s.get("cpu_us_per_req") else ""
        lines.append(f"{a.name:34s} {s['rps']:9.1f}/s{cpu}{ratio}{'' if s['valid'] else '  INVALID'}")
    (out / "only.json").write_text(json.dumps({"rounds": runs, "summary": summary}, indent=2) + "\n")
    print("\n".join(lines))


def cpu_model():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def assemble(args, stack, arms, runs, keep, mail, idle_rss, idle_rss_end, counts, password_hash, elapsed):
    arm_summary = {a.name: summarize(runs[a.name]) for a in arms}
    for a in arms:
        arm_summary[a.name]["rounds"] = runs[a.name]
        arm_summary[a.name]["kind"] = a.kind
    mail_summary = {}
    for k, v in mail.items():
        if v:
            mail_summary[k] = {"per_s": statistics.median(r["per_s"] for r in v), "valid": all(r["valid"] for r in v),
                               "rounds": v}
    ratios = []

    def rps(name):
        return arm_summary[name]["rps"]

    def add(label, num, den, target, valid=True, note=""):
        value = num / den if num and den else None
        if target is None:
            verdict = "report"
        elif value is None or not valid:
            verdict = "invalid"
        elif isinstance(target, tuple):
            verdict = "pass" if target[0] <= value <= target[1] else "miss"
        else:
            verdict = "pass" if value >= target else "miss"
        ratios.append({"ratio": label, "value": value, "target": target, "verdict": verdict, "note": note})

    for a in arms:
        if a.floor is None:
            continue
        s = arm_summary[a.name]
        valid = s["valid"] and (a.floor not in arm_summary or arm_summary[a.floor]["valid"])
        add(f"{a.name} ÷ {a.floor}", s["rps"], rps(a.floor), a.target, valid)
    if "sender" in mail_summary and "smtp-loop" in mail_summary:
        add("sender ÷ smtp-loop", mail_summary["sender"]["per_s"], mail_summary["smtp-loop"]["per_s"], 0.5,
            mail_summary["sender"]["valid"] and mail_summary["smtp-loop"]["valid"])
    for suffix, label in (("", "plain sink"), ("-starttls", "STARTTLS sink")):
        on, off = mail_summary.get("sender-reuse" + suffix), mail_summary.get("sender-no-reuse" + suffix)
        if on and off:
            add(f"sender with ÷ without SMTP session reuse ({label})", on["per_s"], off["per_s"], 2.0,
                on["valid"] and off["valid"])
    # Timing must not reveal whether an e-mail is registered: p50 ratios held to a band around 1.
    for num, den, label in (("login-unknown", "login", "login p50: unknown ÷ known user"),
                            ("login-legacy-wrong", "login-unknown",
                             "login p50: wrong password of a legacy-AES user ÷ unknown user"),
                            ("request-pass-unknown", "request-pass", "request-pass p50: unknown ÷ known user"),
                            ("email-code-unknown", "email-code", "email-code p50: unknown ÷ known user")):
        a, b = arm_summary[num], arm_summary[den]
        add(label, a["p50_ms"], b["p50_ms"], (0.9, 1.1), a["valid"] and b["valid"], note="within the band")
    main_idle = [kib for kib, pool in idle_rss.values() if pool == "main" and kib]
    all_idle = [kib for kib, _ in idle_rss.values() if kib]
    idle_worst = max(main_idle or all_idle or [0])
    ratios.append({"ratio": "idle worker RSS (MiB, largest main-pool worker)", "value": idle_worst / 1024,
                   "target": 16, "verdict": "pass" if idle_worst / 1024 <= 16 else "miss", "note": "≤ target",
                   "lower_is_better": True})

    conf = stack.config.read_text()
    argon = re.search(r"\$argon2id\$v=\d+\$([^$]+)\$", password_hash).group(1)
    keep_verdict = keep_decision(keep)
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "run_seconds": elapsed,
        "machine": {"nproc": os.cpu_count(), "cpu": cpu_model(), "kernel": os.uname().release,
                    "load_before": Path("/proc/loadavg").read_text().split()[:3]},
        "settings": {
            "seconds_per_arm": args.seconds, "rounds": args.rounds, "warmup_seconds": args.warmup,
            "wrk": f"wrk -t1 -c{args.conns} (Argon2id arms: -c{args.hash_conns}) -d{max(1, round(args.seconds))}s "
                   "--timeout 5s --latency -s bench/wrk/arm.lua",
            "svc_workers": stack.workers, "hashing_workers": stack.hashing_workers,
            "max_requests": stack.max_requests, "argon2id": argon,
            "hello_workers": stack.workers,
            "nginx": "worker_processes 1; access_log off; production snippets (fastcgi_keep_conn off, "
                     "request buffering on); development rate-limit zones (10000 r/s per connection)",
            "keepalive_pool_for_keep_conn_on": args.keepalive,
            "mariadb": "innodb_buffer_pool_size=128M innodb_flush_log_at_trx_commit=2 skip-log-bin (scripts/stack.sh)",
            "sender_mails_per_run": args.mails, "smtp_batch": int(re.search(r"^batch = (\d+)", conf, re.M).group(1)),
            "build": "CMAKE_BUILD_TYPE=Release",
        },
        "data_set": {"users": int(counts[0]), "folder_links": int(counts[1]), "templates": int(counts[2]),
                     "sites": int(counts[3]), "customers": CUSTOMERS},
        "arms": arm_summary,
        "mail": mail_summary,
        "keep_conn": {"runs": keep, "decision": keep_verdict},
        "idle_rss_kib": {"after_warmup": {str(k): v for k, v in idle_rss.items()},
                         "at_end": {str(k): v for k, v in idle_rss_end.items()}},
        "ratios": ratios,
    }


def add_mix_ratio(results):
    """The mixed-traffic row: svc's sustainable rate ÷ the PHP-FPM peer's
    (bench/mix.py), target ≥ 3. When the peer passed none of its rates, its
    lowest rate bounds it from above, so svc ÷ that rate is a lower bound."""
    mix = results.get("mix") or {}
    peer = mix.get("peer")
    if not peer:
        return
    svc, php = mix["sustainable_rate"], peer["sustainable_rate"]
    if peer.get("error") or not peer["steps"]:
        value, verdict, note = None, "invalid", "the PHP-FPM peer did not run"
    elif not svc:
        value, verdict, note = None, "invalid", "svc passed none of its rates"
    elif php:
        value = svc / php
        verdict = "pass" if value >= 3 else "miss"
        bounds = [why for why, hit in (("svc passed all its rates", svc == mix["steps"][-1]["rate"] and
                                        mix["steps"][-1]["ok"]),
                                       ("PHP-FPM passed all its rates", php == peer["rates"][-1])) if hit]
        note = "; ".join(bounds)
    else:
        value, note = svc / peer["rates"][0], "lower bound: PHP-FPM passed none of its rates"
        verdict = "pass" if value >= 3 else "miss"
    results["ratios"].append({"ratio": "mix sustainable rate svc ÷ PHP-FPM", "value": value, "target": 3,
                              "verdict": verdict, "note": note})


def keep_decision(keep):
    """The production setting that wins without stalls or errors."""
    def failures(r):
        return r["socket_errors"]["timeout"] + r["socket_errors"]["read"] + r["unexpected"]

    on = {k[3:]: r for k, r in keep.items() if k.startswith("on ")}
    off = {k[4:]: r for k, r in keep.items() if k.startswith("off ")}
    on_bad = {k: failures(r) for k, r in on.items() if failures(r)}
    off_bad = {k: failures(r) for k, r in off.items() if failures(r)}
    speedup = statistics.median(on[k]["rps"] / off[k]["rps"] for k in on if off.get(k) and off[k]["rps"])
    if on_bad and not off_bad:
        where = ", ".join(f"{k}: {v}" for k, v in on_bad.items())
        return (f"off: keep_conn on was {speedup:.2f}x as fast (median) but failed requests ({where}); "
                "off had none")
    if off_bad:
        return "neither is clean: see the table"
    if speedup > 1:
        return f"on: {speedup:.2f}x as fast with no failures (production snippet still says off)"
    return f"off: keep_conn on was not faster ({speedup:.2f}x)"


def fmt(v, digits=2):
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    return str(v)


def render_table(r):
    rows = ["| ratio | value | target | result |", "|---|---:|---:|---|"]
    for x in r["ratios"]:
        tgt = "report" if x["target"] is None else (
            f"{x['target'][0]}–{x['target'][1]}" if isinstance(x["target"], (list, tuple))
            else f"≤ {x['target']}" if x.get("lower_is_better") else f"≥ {x['target']}")
        rows.append(f"| {x['ratio']} | {fmt(x['value'])} | {tgt} | {x['verdict']} |")
    return "\n".join(rows)


def loop_rates(argon2):
    rates = argon2.get("loop_verifies_per_s") or {}
    return " (" + ", ".join(f"{n} {v:.1f}/s" for n, v in rates.items()) + ")" if rates else ""


def render_markdown(r):
    s, m = r["settings"], r["machine"]
    lines = [
        "# Benchmarks",
        "",
        "Generated by `make bench` (`scripts/bench.sh` → `bench/bench.py`); machine-readable results in",
        "`bench/results.json`. Every number is a ratio against a floor measured in the same run on the same",
        "machine, so runs on different machines compare. Rerun after a change that may cost time.",
        "",
        "## How to run",
        "",
        "```sh",
        "make bench                                   # about 6 minutes on 2 cores, plus a first Release build",
        "BENCH_SECONDS=2 BENCH_ROUNDS=1 make bench     # smoke run",
        "```",
        "",
        "`scripts/bench.sh` builds `build-release/` (Release, no tests) and the helpers in `bench/out/bin/`",
        "(`bench/hello.c`, `bench/argon2_raw.c`, `bench/argon2_impls.cpp`, `bench/push_raw.cpp`, "
        "`bench/sender_pass.cpp`), starts its own",
        "stack in `/tmp/svc-bench.*` (`scripts/stack.sh` with `SVC_ACCESS_LOG=off`, `SVC_SENDER_LOOP=0` and the",
        "bench server blocks of `bench/nginx-bench.conf.in` in the same nginx) and always stops it. Settings:",
        "`BENCH_SECONDS` (5), `BENCH_ROUNDS` (3), `BENCH_CONNECTIONS` (32), `BENCH_HASH_CONNECTIONS` (8),",
        "`BENCH_MAILS` (1000), `BENCH_WARMUP` (1), `SVC_WORKERS` (nproc), `SVC_HASHING_WORKERS` (nproc),",
        "`BENCH_KEEP_STACK=1` keeps the stack directory. Logs of the last run: `bench/out/last-run/`.",
        "The wrk scripts are `bench/wrk/arm.lua` (request files in `bench/out/*.txt`).",
        "The mixed-traffic open-loop arm (`bench/mix.py`): `BENCH_MIX_SECONDS` (60 per offered rate, 0 skips it),",
        "`BENCH_MIX_RATES` (250,500,1000,1250,1500,1750,2000, tried in order until one fails): up to about 7.5 more minutes.",
        "Then the same search against the PHP-FPM peer (`bench/php-peer/`: plain PHP 8.2 under `php-fpm8.2 -F`",
        "from the stack directory, `pm = static`, opcache on, PDO with a persistent connection, behind the same",
        "nginx on a port of its own): `BENCH_MIX_PHP_RATES` (100,250,350,500,750,1000; empty skips the peer),",
        "`BENCH_PHP_WORKERS` (8, its pool size: four per core, docs/decisions.md): up to about 6.5 more minutes,",
        "usually 3 to 4. Its six routes are checked first (status and field names); a wrong answer skips it.",
        "",
        "## This run",
        "",
        f"- date: {r['date']}; run time {r['run_seconds']:.0f} s (without the build)",
        f"- machine: {m['nproc']} cores, {m['cpu']}, Linux {m['kernel']}, load average before the run "
        f"{' '.join(m['load_before'])}",
        f"- data set: {r['data_set']['users']:,} users (one shared Argon2id hash), "
        f"{r['data_set']['folder_links']:,} folder links, {r['data_set']['templates']} templates over "
        f"{r['data_set']['sites']} sites, {r['data_set']['customers']} push subscriptions",
        f"- load: {s['wrk']}; {s['rounds']} rounds, arms interleaved, median reported; warm-up "
        f"{s['warmup_seconds']} s per arm; the login arm and its Argon2id floor alternate in 1 s slices "
        "within each round (this box's Argon2id speed drifts by up to a fifth within seconds)",
        f"- svc-fcgi: {s['svc_workers']} workers + {s['hashing_workers']} hashing-pool workers "
        f"(login, sign-up, reset-pass), max_requests {s['max_requests']}, Argon2id {s['argon2id']}, "
        f"{s['build']}; hello: {s['hello_workers']} prefork libfcgi workers",
        f"- nginx: {s['nginx']}",
        f"- MariaDB: {s['mariadb']}",
        f"- sender: {s['sender_mails_per_run']} mails per run, [smtp] batch {s['smtp_batch']}, "
        "aiosmtpd sink (scripts/sinks/smtp_sink.py) for every mail arm",
        "",
        "## Ratios and targets",
        "",
        render_table(r),
        "",
        "## Arms",
        "",
        "Medians over the rounds. CPU = user+system time of nginx, svc-fcgi (master and both pools), mysqld and",
        "the hello program over the arm, per request. RSS = largest VmHWM among the workers that served the arm.",
        "`unexpected` counts replies with another status than expected (2xx; 401 for unknown-user logins);",
        "an arm with any, or with socket errors, is invalid.",
        "",
        "| arm | req/s | p50 ms | p99 ms | CPU µs/req | peak RSS MiB | unexpected | valid |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, a in r["arms"].items():
        if a["kind"] == "raw":
            continue
        rss = a["peak_rss_kib"] / 1024 if a["peak_rss_kib"] else None
        bad = f"{a['unexpected']}" + (f" ({a['unexpected_statuses']})" if a["unexpected_statuses"] else "")
        if a["socket_errors"]:
            bad += f", {a['socket_errors']} socket errors"
        lines.append(f"| {name} | {fmt(a['rps'], 1)} | {fmt(a['p50_ms'])} | {fmt(a['p99_ms'])} | "
                     f"{fmt(a['cpu_us_per_req'], 0)} | {fmt(rss, 1)} | {bad} | {'yes' if a['valid'] else 'NO'} |")
    flood = r["arms"].get("refresh-token-under-login-flood", {})
    if flood.get("flood_login_rps") is not None:
        lines += ["", f"During the flood arm, the login flood itself ran at {flood['flood_login_rps']:.1f} req/s "
                      f"({flood.get('flood_unexpected', 0)} unexpected replies)."]
    lines += ["", "## Floors", "", "| floor | ops/s | how |", "|---|---:|---|"]
    how = {"argon2-verify": "crypto_pwhash_str_verify of the data set's hash, one process per core (bench/argon2_raw.c)",
           "argon2-hash": "crypto_pwhash_str with the same m and t, one process per core",
           "argon2-verify-fastest": "the fastest implementation of the table below, verify loop, one process per "
                                    "core (bench/argon2_impls.cpp loop), in 1 s slices alternating with the "
                                    "login arm's (bench/arms.py run_paired)",
           "push-raw": "encrypt_push_payload + vapid_jwt + header from libsvc_core.a, one process per core "
                       "(bench/push_raw.cpp)"}
    for name, a in r["arms"].items():
        if a["kind"] == "raw":
            lines.append(f"| {name} | {fmt(a['rps'], 1)} | {how.get(name, '')} |")
    for name in ("static", "hello"):
        a = r["arms"][name]
        lines.append(f"| {name} | {fmt(a['rps'], 1)} | "
                     + ("nginx `return 200` with the same JSON body" if name == "static"
                        else "bench/hello.c behind the same nginx and FastCGI settings") + " |")
    lines += ["", "## E-mail", "", "| run | mails/s | connections | valid |", "|---|---:|---:|---|"]
    mail_how = {"sender": "svc-sender one-shot pass (process wall time)",
                "smtp-loop": "bench/smtp_loop.py: the same messages, smtplib, one connection",
                "sender-reuse": "bench/sender_pass.cpp: svc's Sender + SmtpMailer, session reused",
                "sender-no-reuse": "bench/sender_pass.cpp: same, one connection per message",
                "sender-reuse-starttls": "sender_pass, session reused, sink requiring STARTTLS",
                "sender-no-reuse-starttls": "sender_pass, one STARTTLS session per message"}
    for name, v in r["mail"].items():
        conns = [x.get("connections") for x in v["rounds"] if x.get("connections") is not None]
        lines.append(f"| {name}: {mail_how.get(name, '')} | {fmt(v['per_s'], 1)} | "
                     f"{fmt(statistics.median(conns), 0) if conns else '–'} | {'yes' if v['valid'] else 'NO'} |")
    lines += ["", "svc-sender has no switch for SMTP session reuse, so the on/off pair runs bench/sender_pass.cpp: "
                  "svc's own Sender, OutboxRepo and SmtpMailer from libsvc_core.a, with SmtpMailer's "
                  "reuse_session on or off."]
    if "sender-reuse" not in r["mail"]:
        lines += ["", "Session reuse on/off: not measured (bench/sender_pass.cpp did not build)."]
    lines += ["", "## fastcgi_keep_conn", "",
              "Measured once: the production locations (`fastcgi_keep_conn off`) against a bench-only server",
              f"with `fastcgi_keep_conn on` and an upstream `keepalive {s['keepalive_pool_for_keep_conn_on']}` pool "
              "(same FastCGI parameters, no rate limit); wrk --timeout 2s, so a stall shows up as a timeout.", "",
              "| keep_conn | request | connections | req/s | p50 ms | p99 ms | max ms | timeouts | unexpected |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for key, k in r["keep_conn"]["runs"].items():
        label, method, path, conns = key.split(" ")
        bad = f"{k['unexpected']}" + (f" ({k['unexpected_statuses']})" if k["unexpected_statuses"] else "")
        lines.append(f"| {label} | {method} {path} | {conns[1:]} | {fmt(k['rps'], 1)} | {fmt(k['p50_ms'])} | "
                     f"{fmt(k['p99_ms'])} | {fmt(k['max_ms'])} | {k['socket_errors']['timeout']} | {bad} |")
    lines += ["", f"Decision: **{r['keep_conn']['decision']}**.", ""]
    idle = r["idle_rss_kib"]
    lines += ["## Worker memory", "", "VmRSS of each svc-fcgi process (master and workers) while idle, KiB "
              "(pool from the request log: main, hashing, or ? for a worker that had served nothing yet):", ""]
    for when in ("after_warmup", "at_end"):
        vals = ", ".join(f"{kib} ({pool})" for kib, pool in idle[when].values())
        lines.append(f"- {when.replace('_', ' ')}: {vals}")
    impls = r.get("argon2_impls", {}).get("runs")
    if impls:
        lines += ["", "## Argon2id implementations (this run)", "",
                  f"Same stored hash, interleaved, each in a fresh process after one untimed verify "
                  f"(bench/argon2_impls.cpp); fastest: **{r['argon2_impls']['fastest']}**, the login floor: of "
                  "the candidates within 10 % of the best time alone, the one with the most verifies/s in the "
                  "floor's own loop, one process per core" + loop_rates(r["argon2_impls"]) + ".", "",
                  "| implementation | ms/verify (median) | p90 | verifies | page faults/verify | peak RSS MiB |",
                  "|---|---:|---:|---:|---:|---:|"]
        for i in impls:
            lines.append(f"| {i['impl']} | {fmt(i['median_ms'])} | {fmt(i['p90_ms'])} | {i['n']} | "
                         f"{i['faults_per_verify']:.0f} | {fmt(i['rss_kib'] / 1024, 1)} |")
    algs = r.get("token_algs")
    if algs:
        lines += ["", "## Access-token signing algorithms (this run)", "",
                  "One access token's claims signed and verified in a loop, each algorithm in turn "
                  "(bench/token_sign.cpp, svc's own SigningKey and JWT code from libsvc_core.a, one process); "
                  "ES256 is the default `[tokens] access_alg`, HS256 the legacy setting.", "",
                  "| alg | sign µs | verify µs | sign + verify µs | tokens |", "|---|---:|---:|---:|---:|"]
        for a in algs:
            lines.append(f"| {a['alg']} | {fmt(a['sign_us'])} | {fmt(a['verify_us'])} | "
                         f"{fmt(a['sign_verify_us'])} | {a['tokens']:,} |")
    argon_notes = REPO / "bench" / "argon2-notes.md"
    if argon_notes.exists():
        lines += ["", argon_notes.read_text().rstrip()]
    outbound_notes = REPO / "bench" / "outbound-notes.md"
    if outbound_notes.exists():
        lines += ["", outbound_notes.read_text().rstrip()]
    notes = REPO / "bench" / "profile-notes.md"
    if notes.exists():
        lines += ["", notes.read_text().rstrip()]
    lines += mix_markdown(r.get("mix"), "bench-mix.svg")
    perf_notes = REPO / "bench" / "perf-notes.md"
    if perf_notes.exists():
        lines += ["", perf_notes.read_text().rstrip()]
    return "\n".join(lines) + "\n"

"""The benchmark's results: the JSON of a run (assemble), the ratios against their floors and targets (ratios), and
docs/benchmarks.md (render_markdown, one function a section). Part of bench/bench.py; stdlib only.
"""

import datetime
import json
import os
import re
import statistics
from pathlib import Path

from arms import summarize
from breached_rows import markdown as breached_markdown
from mix import ROUTES as MIX_ROUTES, render_markdown as mix_markdown, run_ratio as mix_ratio
from stack import REPO

RESULTS = REPO / "bench" / "results.json"
DOC = REPO / "docs" / "benchmarks.md"


def render_only(results, doc):
    """Rewrites docs/benchmarks.md from bench/results.json (after editing this renderer), running nothing."""
    Path(doc).write_text(render_markdown(json.loads(Path(results).read_text())))


def write_only_results(out, arms, runs):
    """--only: medians and same-run ratios to stdout and out/only.json; the
    committed results and docs/benchmarks.md stay as they are."""
    summary = {a.name: summarize(runs[a.name]) for a in arms}
    rows = arm_rows(arms, summary)
    (out / "only.json").write_text(json.dumps({"rounds": runs, "summary": summary, "ratios": rows}, indent=2) + "\n")
    print("\n".join(f"{n:34s} {s['rps']:9.1f}/s{'' if s['valid'] else '  INVALID ' + s['unexpected_statuses']}"
                    for n, s in summary.items()))
    print(render_table({"ratios": rows}))


def cpu_model():
    lines = Path("/proc/cpuinfo").read_text().splitlines()
    return next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")), "unknown")


# --- results.json --------------------------------------------------------------------

def ratio_row(label, num, den, target, valid=True, note="", lower_is_better=False):
    """One row of the ratios table: target None (reported only), a number (at
    least, or at most when lower_is_better) or a (low, high) band."""
    value = num / den if num and den else None
    if target is None:
        verdict = "report"
    elif value is None or not valid:
        verdict = "invalid"
    elif isinstance(target, tuple):
        verdict = "pass" if target[0] <= value <= target[1] else "miss"
    else:
        verdict = "pass" if (value <= target if lower_is_better else value >= target) else "miss"
    row = {"ratio": label, "value": value, "target": target, "verdict": verdict, "note": note}
    return dict(row, lower_is_better=True) if lower_is_better else row


def breached_ratios(b):
    """The breached list's rows (bench/breached_rows.py): lookup cold, cold open and warm in % of one
    Argon2id verify (≤ 2), import ÷ read (≥ 0.5); a cold figure whose drop left pages cached is invalid."""
    rows = []
    lk, im = b.get("lookup") or {}, b.get("import") or {}
    if lk and "error" not in lk:
        for kind, us in (("cold", lk["cold_us"]), ("cold open: open() + first lookup", lk["cold_open_us"]),
                         ("warm", lk["warm_us"])):
            rows.append(ratio_row(f"breached-list lookup, {kind}, % of one argon2id verify ({lk['entries']:,} "
                                  "entries)", 100 * us, lk["verify_ms"] * 1000, 2,
                                  lk["resident_after_drop"] < 0.01 or kind == "warm", "≤ target", True))
    if im and "error" not in im:
        rows.append(ratio_row(f"breached-list import ÷ sequential read of the same file ({im['lines']:,} lines)",
                              im["ratio"], 1, 0.5, im["resident_after_drop"] < 0.01))
    return rows


# Timing must not reveal whether an e-mail is registered: p50 ratios held to a band around 1.
TIMING_PAIRS = (("login-unknown", "login", "login p50: unknown ÷ known user"),
                ("login-legacy-wrong", "login-unknown", "login p50: wrong password of a legacy-AES user ÷ unknown user"),
                ("request-pass-unknown", "request-pass", "request-pass p50: unknown ÷ known user"),
                ("email-code-unknown", "email-code", "email-code p50: unknown ÷ known user"))


def arm_rows(arms, arm_summary):
    """Each arm ÷ its floor, and ÷ the arm it is set against (Arm.versus), same run; invalid when that arm
    did not run."""
    rows = [ratio_row(f"{a.name} ÷ {a.floor}", arm_summary[a.name]["rps"], arm_summary[a.floor]["rps"], a.target,
                      arm_summary[a.name]["valid"] and arm_summary[a.floor]["valid"]) for a in arms if a.floor]
    for a in arms:
        if not a.versus:
            continue
        other, target = a.versus
        s, o = arm_summary[a.name], arm_summary.get(other)
        rows.append(ratio_row(f"{a.name} ÷ {other}", s["rps"], o["rps"], target, s["valid"] and o["valid"]) if o
                    else ratio_row(f"{a.name} ÷ {other}", None, None, target, False, note=f"{other} did not run"))
    return rows


def ratios(arms, arm_summary, mail_summary, idle_rss):
    """Every arm ÷ its floor and ÷ its versus arm, the e-mail ratios, the timing bands and the idle RSS row."""
    rows = arm_rows(arms, arm_summary)
    mail_pairs = [("sender ÷ smtp-loop", "sender", "smtp-loop", 0.5)] + [
        (f"sender with ÷ without SMTP session reuse ({label})", "sender-reuse" + suffix, "sender-no-reuse" + suffix, 2.0)
        for suffix, label in (("", "plain sink"), ("-starttls", "STARTTLS sink"))]
    for label, num, den, target in mail_pairs:
        on, off = mail_summary.get(num), mail_summary.get(den)
        if on and off:
            rows.append(ratio_row(label, on["per_s"], off["per_s"], target, on["valid"] and off["valid"]))
    for num, den, label in TIMING_PAIRS:
        a, b = arm_summary[num], arm_summary[den]
        rows.append(ratio_row(label, a["p50_ms"], b["p50_ms"], (0.9, 1.1), a["valid"] and b["valid"],
                              note="within the band"))
    main_idle = [kib for kib, pool in idle_rss.values() if pool == "main" and kib]
    idle_worst = max(main_idle or [kib for kib, _ in idle_rss.values() if kib] or [0])
    rows.append(ratio_row("idle worker RSS (MiB, largest main-pool worker)", idle_worst, 1024, 16,
                          note="≤ target", lower_is_better=True))
    return rows


def settings(args, stack, password_hash):
    conf = stack.config.read_text()
    return {
        "seconds_per_arm": args.seconds, "rounds": args.rounds, "warmup_seconds": args.warmup,
        "wrk": f"wrk -t1 -c{args.conns} (Argon2id arms: -c{args.hash_conns}) -d{max(1, round(args.seconds))}s "
               "--timeout 5s --latency -s bench/wrk/arm.lua",
        "svc_workers": stack.workers, "hashing_workers": stack.hashing_workers, "max_requests": stack.max_requests,
        "argon2id": re.search(r"\$argon2id\$v=\d+\$([^$]+)\$", password_hash).group(1),
        "hello_workers": stack.workers,
        "nginx": "worker_processes 1; access_log off; production snippets (fastcgi_keep_conn on, "
                 "request buffering on); the main pool's upstream as nginx/stack.conf.in (keepalive 2); "
                 "development rate-limit zones (1000000 r/s per connection)",
        "mariadb": "innodb_buffer_pool_size=128M innodb_flush_log_at_trx_commit=2 skip-log-bin (scripts/stack.sh)",
        "sender_mails_per_run": args.mails, "smtp_batch": int(re.search(r"^batch = (\d+)", conf, re.M).group(1)),
        "build": "CMAKE_BUILD_TYPE=Release",
    }


def assemble(args, stack, arms, runs, mail, idle, counts, password_hash, elapsed):
    """results.json of a run; idle: the workers' RSS after the warm-up and at the end (bench.py worker_rss)."""
    arm_summary = {a.name: dict(summarize(runs[a.name]), rounds=runs[a.name], kind=a.kind, floor=a.floor,
                                target=a.target) for a in arms}
    mail_summary = {k: {"per_s": statistics.median(r["per_s"] for r in v), "valid": all(r["valid"] for r in v),
                        "rounds": v} for k, v in mail.items() if v}
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "run_seconds": elapsed,
        "machine": {"nproc": os.cpu_count(), "cpu": cpu_model(), "kernel": os.uname().release,
                    "load_before": Path("/proc/loadavg").read_text().split()[:3]},
        "settings": settings(args, stack, password_hash),
        "data_set": {"users": int(counts[0]), "folder_links": int(counts[1]), "templates": int(counts[2]),
                     "sites": int(counts[3])},
        "arms": arm_summary,
        "mail": mail_summary,
        "idle_rss_kib": {when: {str(k): v for k, v in rss.items()} for when, rss in zip(("after_warmup", "at_end"), idle)},
        "ratios": ratios(arms, arm_summary, mail_summary, idle[0]),
    }


def add_mix_ratio(results):
    """The mixed-traffic rows, one per run (bench/mix.py run_ratio): svc's sustainable rate ÷ the peer's, ≥ 3."""
    runs = (results.get("mix") or {}).get("runs") or []
    for k, run in enumerate(runs, 1):
        if run.get("peer"):
            value, note = mix_ratio(run)
            results["ratios"].append(ratio_row(f"mix sustainable rate svc ÷ rotating PHP-FPM peer, run {k} of "
                                               f"{len(runs)}", value, 1, 3, value is not None, note))


# --- docs/benchmarks.md --------------------------------------------------------------

def fmt(v, digits=2):
    return "–" if v is None else f"{v:,.{digits}f}" if isinstance(v, float) else str(v)


def render_table(r):
    rows = ["| ratio | value | target | result |", "|---|---:|---:|---|"]
    for x in r["ratios"]:
        tgt = "report" if x["target"] is None else (
            f"{x['target'][0]}–{x['target'][1]}" if isinstance(x["target"], (list, tuple))
            else f"≤ {x['target']}" if x.get("lower_is_better") else f"≥ {x['target']}")
        rows.append(f"| {x['ratio']} | {fmt(x['value'])} | {tgt} | {x['verdict']} |")
    return "\n".join(rows)


def table(head, rows):
    """A markdown table: `head` the column names (a trailing ":" right-aligns one), rows of cells."""
    names = [h.rstrip(":") for h in head]
    return (["| " + " | ".join(names) + " |", "|" + "".join("---:|" if h.endswith(":") else "---|" for h in head)]
            + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


HOW_TO_RUN = """# Benchmarks

Generated by `make bench` (`scripts/bench.sh` → `bench/bench.py`, the arms in `bench/arms.py` build_arms, this
page by `bench/report.py`); machine-readable results in `bench/results.json`. Every number is a ratio against a
floor measured in the same run on the same machine, so runs on different machines compare. Rerun after a change
that may cost time. Earlier runs and the profiles by hand: [benchmarks-history.md](benchmarks-history.md).

## How to run

```sh
make bench              # 30 to 50 minutes on 2 cores (three mix comparisons), plus a first Release build
BENCH_SECONDS=2 BENCH_ROUNDS=1 BENCH_MIX_SECONDS=5 BENCH_MIX_RATES=250 BENCH_MIX_PHP_RATES=100 \\
  BENCH_MIX_RUNS=1 BENCH_BREACHED_ENTRIES=0 BENCH_FLOOR_DELETE_ROWS=100000 make bench  # smoke run
```

`scripts/bench.sh` builds `build-release/` (Release, no tests) and the helpers in `bench/out/bin/`, starts its own
stack in `/tmp/svc-bench.*` (`scripts/stack.sh` with `SVC_ACCESS_LOG=off`, `SVC_SENDER_LOOP=0` and the bench
server blocks of `bench/nginx-bench.conf.in` in the same nginx: the floors and the PHP-FPM peer), creates the
write floors' tables (`bench/floors.sql`) and always stops everything it started. Its header lists every
setting; the main ones: `BENCH_SECONDS` (5), `BENCH_ROUNDS` (3), `BENCH_CONNECTIONS` (32),
`BENCH_HASH_CONNECTIONS` (8), `BENCH_MAILS` (1000), `BENCH_WARMUP` (1), `SVC_WORKERS` (nproc),
`BENCH_KEEP_STACK=1` keeps the stack directory; `BENCH_ONLY=refresh-token,notification` runs those arms and
their floors alone (to `bench/out/only.json`; `BENCH_ONLY=mix` and `BENCH_ONLY=breached` those parts alone).
Logs of the last run: `bench/out/last-run/`. The mix (`bench/mix.py`): `BENCH_MIX_SECONDS` (60 per offered
rate, 0 skips it), `BENCH_MIX_RATES` (250,500,750,1000,1250,1500,1750,2000), `BENCH_MIX_PHP_RATES`
(100,250,350,500,750,1000; empty skips the peer), `BENCH_MIX_RUNS` (3 consecutive comparisons),
`BENCH_PHP_WORKERS` (8). The breached-password list (`bench/breached_rows.py`): `BENCH_BREACHED_ENTRIES`
(100,000,000; 0 skips these rows), `BENCH_BREACHED_LINES` (10,000,000), generated once into
`bench/out/breached/` (about 1.3 GB) and reused. The write ceiling of a Galera cluster is not part of it:
[cluster.md](cluster.md) "The write ceiling" has its figures and how they were measured.""".split("\n")


def this_run(r):
    s, m, d = r["settings"], r["machine"], r["data_set"]
    return ["", "## This run", "",
            f"- date: {r['date']}; run time {r['run_seconds']:.0f} s (without the build)",
            f"- machine: {m['nproc']} cores, {m['cpu']}, Linux {m['kernel']}, load average before the run "
            f"{' '.join(m['load_before'])}",
            f"- data set: {d['users']:,} users (one shared Argon2id hash), {d['folder_links']:,} folder links, "
            f"{d['templates']} templates over {d['sites']} sites",
            f"- load: {s['wrk']}; {s['rounds']} rounds, arms interleaved, median reported; warm-up "
            f"{s['warmup_seconds']} s per arm; the login arm, its Argon2id floor and login-mfa-verify alternate in "
            "1 s slices within each round (this box's Argon2id speed drifts by up to a fifth within seconds)",
            f"- svc-fcgi: {s['svc_workers']} workers + {s['hashing_workers']} hashing-pool workers "
            f"(login, sign-up, reset-pass), max_requests {s['max_requests']}, Argon2id {s['argon2id']}, "
            f"{s['build']}; hello and each write floor: {s['hello_workers']} prefork libfcgi workers",
            f"- nginx: {s['nginx']}",
            f"- MariaDB: {s['mariadb']}",
            f"- sender: {s['sender_mails_per_run']} mails per run, [smtp] batch {s['smtp_batch']}, "
            "aiosmtpd sink (scripts/sinks/smtp_sink.py) for every mail arm",
            "", "## Ratios and targets", "", render_table(r)]


def arms_section(r):
    rows = []
    for name, a in r["arms"].items():
        if a["kind"] == "raw":
            continue
        bad = f"{a['unexpected']}" + (f" ({a['unexpected_statuses']})" if a["unexpected_statuses"] else "") + (
            f", {a['socket_errors']} socket errors" if a["socket_errors"] else "")
        rows.append([name, fmt(a["rps"], 1), fmt(a["p50_ms"]), fmt(a["p99_ms"]), fmt(a["cpu_us_per_req"], 0),
                     fmt(a["peak_rss_kib"] / 1024 if a["peak_rss_kib"] else None, 1), bad,
                     "yes" if a["valid"] else "NO"])
    lines = ["", "## Arms", "",
             "Medians over the rounds. CPU = user+system time of nginx, svc-fcgi (master and all pools), mysqld,",
             "the floor programs and PHP-FPM over the arm, per request (by process: the profile section). RSS =",
             "largest VmHWM among the svc-fcgi workers that served the arm. `unexpected` counts replies with",
             "another status than expected (2xx; 401 for unknown-user logins); an arm with any, or with socket",
             "errors, is invalid.", ""]
    lines += table(["arm", "req/s:", "p50 ms:", "p99 ms:", "CPU µs/req:", "peak RSS MiB:", "unexpected:", "valid"],
                   rows)
    flood = r["arms"].get("refresh-token-under-login-flood", {})
    if flood.get("flood_login_rps") is not None:
        lines += ["", f"During the flood arm, the login flood itself ran at {flood['flood_login_rps']:.1f} req/s "
                      f"({flood.get('flood_unexpected', 0)} unexpected replies)."]
    lines += ["", "Requests good once (bench/pools.py, each line sent once; a run that used them all is invalid): "
                  "the refresh-token arms present a fresh session's current token, so every reply is a rotation; "
                  "php-refresh-token is the PHP-FPM peer (bench/php-peer/) rotating the same way (a row of its "
                  "own session table, one conditional UPDATE that a reused token or a changed user fails, an ES256 "
                  "access token and an HS256 refresh token); oidc-token-code (POST /oidc/1/token, "
                  "grant_type=authorization_code, client_secret_basic, scope \"openid email profile\") presents "
                  "a fresh code stored as src/oidc/flow.cpp issue_code stores it, and its reply consumes the "
                  "code's row and signs an ES256 access token, an HS256 refresh token and an RS256 ID token."]
    exhausted = {n: a["exhausted"] for n, a in r["arms"].items() if a.get("exhausted")}
    if exhausted:
        lines += ["", "Runs that used up their fresh tokens before their end (invalid): " +
                  ", ".join(f"{n} ({v} requests past the end)" for n, v in exhausted.items()) + "."]
    return lines


FLOOR_HOW = {
    "argon2-hash": "crypto_pwhash_str with the m and t of the data set's hash, one process per core "
                   "(bench/argon2_impls.cpp loop hash)",
    "argon2-verify-fastest": "the fastest of libsodium's verify as is, with a kept arena and with a kept "
                             "arena in huge pages (bench/argon2_impls.cpp), verify loop, one process per core, "
                             "in 1 s slices alternating with the login arm's (bench/arms.py run_paired)",
    "static": "nginx `return 200` with the same JSON body",
    "hello": "bench/hello.c (libfcgi's own prefork loop) behind the same nginx and FastCGI settings",
    "hello-update": "bench/hello_db.c update: hello + one prepared single-row UPDATE by primary key of a row "
                    "drawn at random among 100,000 (libmariadb, svc's account, the stack's MariaDB)",
    "hello-insert": "bench/hello_db.c insert: hello + one prepared single-row INSERT (an outbox-sized row)",
    "hello-delete-rs256": "bench/hello_db.c delete-rs256: hello + one prepared single-row DELETE by key of a "
                          "pre-filled row + one RS256 signature (OpenSSL, 2048-bit key) of an ID token's "
                          "signing input",
}


def floors_section(r):
    names = [n for n, a in r["arms"].items() if a["kind"] == "raw"] + [n for n in FLOOR_HOW if n in r["arms"]
                                                                       and r["arms"][n]["kind"] != "raw"]
    argon2 = r.get("argon2_impls") or {}
    return ["", "## Floors", ""] + table(["floor", "ops/s:", "how"], [
        [n, fmt(r["arms"][n]["rps"], 1), FLOOR_HOW.get(n, "")] for n in names]) + ([
            "", f"The login floor's implementation, {argon2['fastest']}, had the most verifies/s in its own loop "
                "before the rounds: " + ", ".join(f"{n} {v:.1f}/s" for n, v in argon2["loop_verifies_per_s"].items())
                + "."] if argon2.get("fastest") else [])


MAIL_HOW = {"sender": "svc-sender one-shot pass (process wall time)",
            "smtp-loop": "bench/arms.py smtp_replay: the same messages, smtplib, one connection",
            "sender-reuse": "bench/sender_pass.cpp: svc's Sender + SmtpMailer, session reused",
            "sender-no-reuse": "bench/sender_pass.cpp: same, one connection per message",
            "sender-reuse-starttls": "sender_pass, session reused, sink requiring STARTTLS",
            "sender-no-reuse-starttls": "sender_pass, one STARTTLS session per message"}


def mail_section(r):
    rows = []
    for name, v in r["mail"].items():
        conns = [x.get("connections") for x in v["rounds"] if x.get("connections") is not None]
        rows.append([f"{name}: {MAIL_HOW.get(name, '')}", fmt(v["per_s"], 1),
                     fmt(statistics.median(conns), 0) if conns else "–", "yes" if v["valid"] else "NO"])
    lines = ["", "## E-mail", ""] + table(["run", "mails/s:", "connections:", "valid"], rows)
    lines += ["", "svc-sender has no switch for SMTP session reuse, so the on/off pair runs bench/sender_pass.cpp: "
                  "svc's own Sender, OutboxRepo and SmtpMailer from libsvc_core.a, with SmtpMailer's "
                  "reuse_session on or off."]
    if "sender-reuse" not in r["mail"]:
        lines += ["", "Session reuse on/off: not measured (bench/sender_pass.cpp did not build)."]
    return lines


def memory_section(r):
    idle = r["idle_rss_kib"]
    return ["", "## Worker memory", "", "VmRSS of each svc-fcgi process (master and workers) while idle, KiB "
            "(pool from the request log: main, hashing, or ? for a worker that had served nothing yet):", ""] + [
        f"- {when.replace('_', ' ')}: " + ", ".join(f"{kib} ({pool})" for kib, pool in idle[when].values())
        for when in ("after_warmup", "at_end")]


def profile_section(r):
    """Where the time goes for every arm with a target against a floor: CPU per request by process group (arm
    and floor, /proc over the arm), statements per request (Questions), and the room the target leaves."""
    groups = ("nginx", "app", "mariadb")

    def cells(a):
        by = a.get("cpu_us_per_req_by_process") or {}
        app = sum(v for g, v in by.items() if g not in ("nginx", "mariadb")) if by else None
        vals = {"nginx": by.get("nginx"), "app": app, "mariadb": by.get("mariadb")}
        total = sum(by.values()) if by else (os.cpu_count() * 1e6 / a["rps"] if a.get("rps") else None)
        outside = by.get("nginx", 0) + by.get("mariadb", 0)
        return " / ".join(fmt(vals[g], 0) for g in groups), fmt(a.get("statements_per_req"), 1), total, outside

    rows = []
    for x in r["ratios"]:
        name, _, floor = x["ratio"].partition(" ÷ ")
        a, f = r["arms"].get(name), r["arms"].get(floor)
        if not a or not f or not isinstance(x["target"], (int, float)):
            continue
        (acpu, ast, _, outside), (fcpu, fst, ftotal, f_outside) = cells(a), cells(f)
        room = f"{fmt(ftotal / x['target'] - ftotal, 0)} / {fmt(outside - f_outside, 0)}" if x["target"] <= 1 else "–"
        rows.append([x["ratio"], fmt(x["value"]), x["verdict"], acpu, fcpu, ast, fst, room if ftotal else "–"])
    return ["", "## Profile: where the time goes", "",
            "Per request, medians over the rounds: CPU µs of nginx / the application (svc-fcgi, the floor "
            "program, or PHP-FPM) / mysqld, and MariaDB statements (the server's Questions counter: prepared "
            "executions included), of each arm with a target and of its floor. Room: the CPU per request the target "
            "leaves beyond the floor's (floor ÷ target − floor; a raw floor's: its processes' cores ÷ its rate), then "
            "what the arm's nginx and mysqld spend beyond the floor's: where that reaches the room, the route's "
            "statements leave svc-fcgi nothing for its own work.", ""] + table(
        ["ratio", "value:", "result", "arm CPU µs nginx / app / mysqld", "floor CPU µs", "arm statements:",
         "floor statements:", "room / nginx + mysqld beyond the floor µs:"], rows)


def mix_profile(r):
    """Mix runs that miss 3: cores svc would need at 3 × the peer's rate; the logins' Argon2id share of them."""
    login_us = ((r["arms"].get("login") or {}).get("cpu_us_per_req_by_process") or {}).get("svc-fcgi")
    share, rows = dict((n, pct) for n, _, pct in MIX_ROUTES)["login"] / 100, []
    for k, run in enumerate((r.get("mix") or {}).get("runs") or [], 1):
        rate, peer = run.get("sustainable_rate"), (run.get("peer") or {}).get("sustainable_rate")
        step = next((s for s in run["steps"] if s["rate"] == rate), None)
        if step and peer and login_us and rate < 3 * peer:
            used = sum(v for g, v in (step.get("cpu_cores") or {}).items() if g != "generator")
            rows.append([k, rate, peer, 3 * peer, fmt(used * 3 * peer / rate), fmt(share * 3 * peer * login_us / 1e6)])
    return ["", f"The mix runs that miss 3: the cores svc would need at 3 × the peer's rate, projected from its own "
            f"sustainable step (every process but the generator), and those the logins' Argon2id alone takes ({share:.0%}"
            f" of the requests × {fmt(login_us, 0)} µs of svc-fcgi CPU, the login arm's; the peer verifies the same "
            f"hashes). The machine has {os.cpu_count()} cores.", ""] + table(
        ["run", "svc req/s:", "peer req/s:", "3 × peer:", "projected cores:", "Argon2id cores:"],
        [[str(c) for c in row] for row in rows]) if rows else []


def render_markdown(r):
    lines = (HOW_TO_RUN + this_run(r) + arms_section(r) + floors_section(r) + profile_section(r) + mix_profile(r) + mail_section(r)
             + memory_section(r) + breached_markdown(r.get("breached"))
             + mix_markdown(r.get("mix")))
    return "\n".join(lines) + "\n"

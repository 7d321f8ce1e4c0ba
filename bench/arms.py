"""The benchmark's arms: wrk runs against the stack, the floors (raw programs), the Argon2id implementations and the
sender rounds, with their medians. Part of bench/bench.py; stdlib only.

A new endpoint arm is one more Arm(...) row in build_arms.
"""

import json
import re
import smtplib
import statistics
import subprocess
import time
from pathlib import Path

from dataset import PASSWORD, preview_template_id
from load import SOCKET_ERRORS, parse_wrk, wrk_cmd
from mfa_arm import MfaArm
from php_peer import PeerRefreshPool
from pools import CodePool, RefreshPool
from stack import CLK_TCK, group_ticks, log, run, status_kib

STATEMENTS_PER_LOOK = 2  # Stack.statements' own (SET time_zone, SHOW GLOBAL STATUS), counted in the second look

class Arm:
    """kind: "http" (one wrk run), "flood" (wrk while a login flood runs), "raw" (a floor program in command,
    printing ops_per_s) or "client" (a Python client in command, called as command(stack, seconds, conns), for
    flows wrk cannot script: mfa_arm.py). paired_with: the arm this one (its raw floor, or an arm measured
    against it) runs in alternating slices with, in one turn (run_paired), instead of in a turn of its own.
    pool: a pools.FreshPool (RefreshPool, CodePool, php_peer.PeerRefreshPool): each run gets a request file of
    fresh sessions or codes, each line sent once (arm.lua "once"), instead of `file`. versus: (arm name,
    target): a second ratio row, this arm ÷ that one (another implementation of the same route, e.g. the
    PHP-FPM peer's)."""

    def __init__(self, name, path=None, method="GET", file="-", port=None, conns=None, expect="2xx", floor=None,
                 target=None, kind="http", command=None, paired_with=None, pool=None, versus=None):
        self.name, self.path, self.method, self.file = name, path, method, file
        self.port, self.conns, self.expect = port, conns, expect
        self.floor, self.target, self.kind, self.command = floor, target, kind, command
        self.paired_with, self.pool, self.versus = paired_with, pool, versus

    def wrk_cmd(self, stack, seconds, conns, prefix, timeout="5s"):
        return wrk_cmd(stack.url(self.path, self.port), self.method, self.file, seconds, conns, prefix, self.expect,
                       timeout, "once" if self.pool else "random")


def measure(stack, arm, seconds, conns, prefix, tail, roots, flood=None, timeout="5s"):
    """One run of an http, flood or client arm: throughput, latency, unexpected statuses, CPU per request of each
    process group of `roots` ({name: [root pids]}: nginx, svc-fcgi with both pools, mysqld, the floor programs,
    PHP-FPM) and in all, MariaDB statements per request, and the peak RSS of the svc-fcgi workers that served it.
    """
    if arm.pool is not None:  # fresh sessions for this run, written before anything is timed
        arm.file = arm.pool.file_for(seconds, conns)
        if not arm.pool.settle():
            log(f"  {arm.name}: InnoDB had not purged the previous batch after 60 s (measured anyway)")
    tail.take()
    flood_proc = None
    if flood is not None:
        flood_proc = subprocess.Popen(flood.wrk_cmd(stack, seconds + 2, flood.conns, prefix + "f"),
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
    statements0 = stack.statements()
    ticks0, t0 = group_ticks(roots), time.monotonic()
    if arm.kind == "client":
        res = arm.command(stack, seconds, conns)
    else:
        res = parse_wrk(run(arm.wrk_cmd(stack, seconds, conns, prefix, timeout), check=False).stdout)
    ticks1, t1 = group_ticks(roots), time.monotonic()
    statements = stack.statements() - statements0 - STATEMENTS_PER_LOOK
    if flood_proc is not None:
        f = parse_wrk(flood_proc.communicate(timeout=seconds + 60)[0])
        res["flood"] = {"rps": f["rps"], "unexpected": f["unexpected"], "p50_ms": f["p50_ms"]}
    if arm.pool is not None:
        arm.pool.observe(res)
        if res.get("exhausted"):
            log(f"  {arm.name}: its fresh tokens ran out before the run's end (invalid; the next batch is larger)")
    hwm = [status_kib(pid, "VmHWM") for pid, path in tail.take() if path == arm.path]
    hwm = [h for h in hwm if h is not None]
    reqs = res["requests"]
    ticks = {name: ticks1[name] - ticks0[name] for name in roots}
    res.update({
        "cpu_us_per_req": sum(ticks.values()) * 1e6 / CLK_TCK / reqs if reqs else None,
        "cpu_us_per_req_by_process": {n: t * 1e6 / CLK_TCK / reqs for n, t in ticks.items()} if reqs else {},
        "statements_per_req": statements / reqs if reqs and arm.kind != "client" else None,
        "cpu_cores": sum(ticks.values()) / CLK_TCK / (t1 - t0),
        "peak_rss_kib": max(hwm) if hwm else None,
        "valid": (res.get("valid", True) and res["unexpected"] == 0 and sum(res["socket_errors"].values()) == 0
                  and reqs > 0 and not res.get("exhausted")),
    })
    return res


def last_json(cmd, **fallback):
    """(the JSON object on the helper's last line, or `fallback` with its error, its exit status)."""
    r = run(cmd, check=False)
    try:
        return json.loads(r.stdout.strip().splitlines()[-1]), r.returncode
    except (ValueError, IndexError):
        return dict(fallback, error=r.stderr.strip()[-500:] or f"{cmd[0]} printed nothing"), r.returncode


def floor_arm(stack, nproc, name, helper, *argv, **kw):
    """A floor program of bench/out/bin: `helper ARGV... SECONDS NPROC`, one process per core."""
    return Arm(name, kind="raw", command=[str(stack.helpers / helper), *argv, "{seconds}", str(nproc)], **kw)


def measure_raw(arm, seconds):
    """A floor program: ops/s in-process, one process per core."""
    secs = str(max(1, int(round(float(seconds)))))
    res, rc = last_json([part.replace("{seconds}", secs) for part in arm.command], ops_per_s=0)
    return {"rps": res["ops_per_s"], "requests": res.get("ops", 0), "p50_ms": None, "p99_ms": None,
            "max_ms": None, "unexpected": 0, "unexpected_statuses": "",
            "socket_errors": dict.fromkeys(SOCKET_ERRORS, 0), "cpu_us_per_req": None,
            "cpu_cores": None, "peak_rss_kib": None, "valid": rc == 0 and res["ops_per_s"] > 0,
            "procs": res.get("procs")}


# Slices of a paired arm and its floor: whole seconds (wrk's unit), and a
# pause after each arm slice so the requests it left queued (up to the
# arm's connection count) finish before the floor's slice starts.
PAIR_SLICE_SECONDS = 1
PAIR_DRAIN_SECONDS = 0.3


def run_paired(stack, arm, partners, seconds, conns, prefix, tail, roots):
    """The arm and its partners (paired_with it) in alternating slices, arm first, for `seconds` each in all: this box's
    Argon2id speed drifts by a fifth within tens of seconds (other tenants' memory traffic), so a floor measured
    minutes away, or even right after a 5 s arm, divides by another machine. A slice of an arm ends with its requests
    in flight uncounted (about one verify per slice), and a pause for the server to finish them. Returns [arm result,
    partner results...], each as one measurement."""
    parts = [[] for _ in range(1 + len(partners))]
    for i in range(max(1, round(float(seconds) / PAIR_SLICE_SECONDS))):
        parts[0].append(measure(stack, arm, PAIR_SLICE_SECONDS, conns, f"{prefix}-{i}", tail, roots))
        time.sleep(PAIR_DRAIN_SECONDS)
        for p, out in zip(partners, parts[1:]):
            out.append(run_arm(stack, p, PAIR_SLICE_SECONDS, p.conns or conns, f"{prefix}-{p.name}-{i}", tail,
                               roots, None))
            time.sleep(PAIR_DRAIN_SECONDS if p.kind != "raw" else 0)
    return [merge_slices(p) for p in parts]


def merge_slices(parts):
    """One result from slices of one arm: rates over the summed time, CPU and
    statements over the summed requests, the median slice's p50, the worst p99."""
    reqs = sum(p["requests"] for p in parts)
    secs = sum(p["requests"] / p["rps"] for p in parts if p["rps"])
    latencies = [p for p in parts if p["p50_ms"] is not None]

    def per_req(value):  # the mean of value(slice) over the requests of the slices that have one
        have = [(value(p), p["requests"]) for p in parts if p["requests"] and value(p) is not None]
        return sum(v * n for v, n in have) / sum(n for _, n in have) if have else None

    out = dict(parts[0])
    out.update({
        "rps": reqs / secs if secs else 0,
        "requests": reqs,
        "p50_ms": statistics.median(p["p50_ms"] for p in latencies) if latencies else None,
        "p99_ms": max(p["p99_ms"] for p in latencies) if latencies else None,
        "max_ms": max(p["max_ms"] for p in latencies) if latencies else None,
        "unexpected": sum(p["unexpected"] for p in parts),
        "unexpected_statuses": ";".join(p["unexpected_statuses"] for p in parts if p["unexpected_statuses"]),
        "socket_errors": {k: sum(p["socket_errors"].get(k, 0) for p in parts) for k in parts[0]["socket_errors"]},
        "cpu_us_per_req": per_req(lambda p: p["cpu_us_per_req"]),
        "cpu_us_per_req_by_process": {g: per_req(lambda p: p["cpu_us_per_req_by_process"].get(g))
                                      for g in parts[0].get("cpu_us_per_req_by_process") or {}},
        "statements_per_req": per_req(lambda p: p.get("statements_per_req")),
        "cpu_cores": median_of(parts, "cpu_cores"),
        "peak_rss_kib": max((p["peak_rss_kib"] for p in parts if p["peak_rss_kib"]), default=None),
        "valid": all(p["valid"] for p in parts),
        "slices": len(parts),
    })
    return out


ARGON2_CANDIDATES = ("sodium", "sodium-kept", "sodium-kept-thp")  # bench/argon2_impls.cpp


def pick_argon2_floor(stack, password_hash, nproc, seconds=3):
    """The login floor's implementation: of bench/argon2_impls.cpp's candidates, the one with the most verifies/s in
    the floor's own loop (nproc processes at once, as the floor runs: two verifies in parallel share the memory bus
    and the page walker, which one alone does not show). Returns (name, {name: verifies/s}).
    """
    rates = {}
    for name in ARGON2_CANDIDATES:
        arm = floor_arm(stack, nproc, name, "argon2_impls", "loop", name, password_hash, PASSWORD)
        rates[name] = measure_raw(arm, seconds)["rps"]
        log(f"  argon2id {name:16s} {rates[name]:7.1f} verifies/s in {nproc} processes")
    return max(rates, key=rates.get), rates


def run_arm(stack, arm, seconds, conns, prefix, tail, roots, flood):
    if arm.kind == "raw":
        return measure_raw(arm, seconds)
    return measure(stack, arm, seconds, conns, prefix, tail, roots, flood=flood if arm.kind == "flood" else None)


def median_of(runs, key):
    vals = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def summarize(runs):
    s = {k: median_of(runs, k) for k in ("rps", "p50_ms", "p99_ms", "max_ms", "cpu_us_per_req", "cpu_cores")}
    s["statements_per_req"] = median_of(runs, "statements_per_req")
    groups = {g for r in runs for g in r.get("cpu_us_per_req_by_process") or {}}
    s["cpu_us_per_req_by_process"] = {g: median_of([r["cpu_us_per_req_by_process"] for r in runs
                                                     if g in (r.get("cpu_us_per_req_by_process") or {})], g)
                                      for g in sorted(groups)}
    s["peak_rss_kib"] = max((r["peak_rss_kib"] for r in runs if r.get("peak_rss_kib")), default=None)
    s["unexpected"] = sum(r["unexpected"] for r in runs)
    s["unexpected_statuses"] = ";".join(r["unexpected_statuses"] for r in runs if r["unexpected_statuses"])
    s["socket_errors"] = sum(sum(r["socket_errors"].values()) for r in runs)
    s["valid"] = all(r["valid"] for r in runs)
    s["exhausted"] = sum(r.get("exhausted", 0) for r in runs)
    if any("flood" in r for r in runs):
        s["flood_login_rps"] = statistics.median(r["flood"]["rps"] for r in runs if "flood" in r)
        s["flood_unexpected"] = sum(r["flood"]["unexpected"] for r in runs if "flood" in r)
    return s


# --- sender arms ---------------------------------------------------------------------

def queue_mails(stack, proto, count):
    """count fresh Pending copies of the prototype row; returns the id before them."""
    # Whatever an earlier failed run left Pending must not be sent by this one.
    stack.sql("UPDATE svc_notification_log SET status = 'Failed' WHERE status = 'Pending';")
    before = int(stack.sql("SELECT COALESCE(MAX(id), 0) FROM svc_notification_log;").strip())
    stack.sql(f"""
INSERT INTO svc_notification_log (site_id, notification_id, event, recipient, `from`, cc, bcc, subject, body,
                                  status, next_attempt_at)
  SELECT l.site_id, l.notification_id, l.event, CONCAT('rcpt', s.seq, '@example.com'), l.`from`, l.cc, l.bcc,
         l.subject, l.body, 'Pending', NOW() - INTERVAL 1 SECOND
  FROM svc_notification_log l, seq_1_to_{count} s WHERE l.id = {proto};
""")
    return before


def sent_since(stack, before):
    return int(stack.sql(f"SELECT COUNT(*) FROM svc_notification_log WHERE id > {before} AND status = 'Sent';").strip())


def mail_files(stack):
    return sorted((stack.dir / "mail").glob("*.eml"))


def tls_config(stack, port):
    """svc.conf with [smtp] pointing at the STARTTLS sink (self-signed: no peer check)."""
    text = stack.config.read_text()
    head, _, rest = text.partition("[smtp]\n")
    section, sep, tail = rest.partition("\n[")
    section = re.sub(r"^port = \d+$", f"port = {port}", section, flags=re.M)
    section = re.sub(r"^security = \w+$", "security = starttls\nverify_peer = false", section, flags=re.M)
    path = stack.dir / "svc-tls.conf"
    path.write_text(head + "[smtp]\n" + section + sep + tail)
    path.chmod(0o600)
    return path


def smtp_replay(port, paths):
    """The SMTP floor of the e-mail arms: the messages in `paths`, as scripts/sinks/smtp_sink.py stored them (the
    envelope in X-Sink-Mail-From / X-Sink-Rcpt-To, then the bytes svc-sender sent), over ONE smtplib connection to
    the sink; only the session is timed. Invalid (sent 0) if it refused any or failed.
    """
    messages = []
    for path in paths:
        mail_from, rcpt_to, data = Path(path).read_bytes().split(b"\r\n", 2)
        rcpt = [a.strip() for a in rcpt_to.split(b":", 1)[1].decode().split(",") if a.strip()]
        messages.append((mail_from.split(b":", 1)[1].strip().decode(), rcpt, data))
    started = time.monotonic()
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            smtp.ehlo("bench.local")
            for mail_from, rcpt, data in messages:
                if smtp.sendmail(mail_from, rcpt, data):
                    raise smtplib.SMTPException("recipients refused")
    except (OSError, smtplib.SMTPException) as e:
        return {"sent": 0, "seconds": 1, "per_s": 0, "valid": False, "error": repr(e)}
    seconds = time.monotonic() - started
    return {"sent": len(messages), "seconds": round(seconds, 4), "per_s": round(len(messages) / seconds, 2),
            "valid": bool(messages)}


def sender_round(stack, proto, count, replay, results, tls_conf=None):
    """One round of the e-mail arms; `replay`: the messages of the first
    round's svc-sender pass, which smtp-loop sends again each round."""
    # svc-sender, one-shot pass (as the systemd timer runs it)
    before = queue_mails(stack, proto, count)
    seen = set(mail_files(stack))
    t0 = time.monotonic()
    run([str(stack.bin / "svc-sender"), "--config", str(stack.config)], check=False)
    seconds = time.monotonic() - t0
    sent = sent_since(stack, before)
    results["sender"].append({"sent": sent, "queued": count, "seconds": seconds, "per_s": sent / seconds,
                              "valid": sent == count})
    if not replay:
        replay.extend(str(p) for p in mail_files(stack) if p not in seen)
    results["smtp-loop"].append(smtp_replay(stack.smtp_port, replay))
    # session reuse on and off, same Sender/SmtpMailer code (bench/sender_pass.cpp)
    if not (stack.helpers / "sender_pass").exists():
        return
    variants = [("", stack.config, count)]
    if tls_conf:
        variants.append(("-starttls", tls_conf, max(50, count // 4)))
    for (suffix, conf, n), reuse in ((v, r) for v in variants for r in ("1", "0")):
        key = ("sender-reuse" if reuse == "1" else "sender-no-reuse") + suffix
        before = queue_mails(stack, proto, n)
        res, _ = last_json([str(stack.helpers / "sender_pass"), "--config", str(conf), "--reuse", reuse],
                           sent=0, seconds=1, connections=None)
        res["per_s"] = res["sent"] / res["seconds"] if res["seconds"] else 0
        res["valid"] = res["sent"] == n and sent_since(stack, before) == n
        results.setdefault(key, []).append(res)


def only_arms(arms, names):
    """The named arms and, before them, the floors they are measured against."""
    by_name = {a.name: a for a in arms}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise SystemExit(f"bench: unknown arm(s) {', '.join(unknown)}; known: {', '.join(by_name)}")
    keep = set(names)
    for n in names:
        if by_name[n].versus and by_name[n].versus[0] in by_name:
            keep.add(by_name[n].versus[0])
        floor = by_name[n].floor
        while floor:
            keep.add(floor)
            floor = by_name[floor].floor
    return [a for a in arms if a.name in keep]


def build_arms(stack, args, files, password_hash, fastest, nproc, peer=None):
    """The arms of a run, in the order they run each round, and the login flood the "flood" arm runs beside.
    `fastest`: the fastest Argon2id implementation pick_argon2_floor found. peer: the PHP-FPM peer (bench.py
    php_peer), whose refresh-token arm runs beside svc's when it is up.
    """
    def post(name, path, file=None, **kw):  # a POST arm, by default with the request file of its name
        return Arm(name, path, "POST", file or files.get(name, "-"), **{"port": stack.http_port, **kw})

    def rotating(tag):  # each run of a refresh arm presents tokens current at that moment (pools.py)
        return RefreshPool(stack.config, stack.sql, args.out, tag)

    from user_search_arm import UserSearchArm  # here: it builds on Arm, defined above

    peer_up = bool(peer and peer.get("files"))
    # The peer rotates as svc does: fresh sessions of its own each run (php_peer.py PeerRefreshPool).
    php_arms = [Arm("php-refresh-token", "/auth/refresh-token", "POST", port=peer["port"],
                    pool=PeerRefreshPool(stack, args.out, "bphp"))] if peer_up else []

    hashing = {"conns": args.hash_conns}
    # The login floor: a raw verify loop of the fastest implementation measured here.
    # It runs in slices alternating with the login arm's (run_paired).
    fastest_loop = ("argon2_impls", "loop", fastest)
    return [
        Arm("static", "/static", port=stack.bench_port),
        Arm("hello", "/hello", port=stack.bench_port, floor="static"),
        # The write floors (bench/hello_db.c): hello plus the one statement a route must make (and for
        # hello-delete-rs256 an RS256 signature), each the floor of the route that makes that write.
        Arm("hello-update", "/hello-update", port=stack.bench_port, floor="hello"),
        Arm("hello-insert", "/hello-insert", port=stack.bench_port, floor="hello"),
        Arm("hello-delete-rs256", "/hello-delete-rs256", port=stack.bench_port, floor="hello"),
        Arm("health", "/health", port=stack.http_port, floor="hello", target=0.7),
        # Rotation (issue 37): every request a session's current token, so every request rotates.
        post("refresh-token", "/auth/refresh-token", floor="hello-update", target=0.6, pool=rotating("bref"),
             versus=("php-refresh-token", 3)),
        *php_arms,
        post("user-email", "/auth/user-email", floor="hello", target=0.7),
        post("getFolderLimits", "/auth/getFolderLimits", floor="hello", target=0.6),
        # The site management API's user search over 1,000,000 users of one pool (issue 49).
        UserSearchArm(stack, args.out, floor="getFolderLimits", target=0.5),
        post("notification", "/message/notification", floor="hello-insert", target=0.8),
        # Issue 49: the management API's preview renders a template as the sender would, for an admin
        # with a second factor (bench/dataset.py preview_request_lines).
        post("template-preview", f"/admin/sites/1/templates/{preview_template_id(stack)}/preview",
             floor="notification", target=0.5),
        post("sign-out", "/auth/sign-out", floor="hello"),
        post("login", "/auth/login", floor="argon2-verify-fastest", target=0.9, **hashing),
        # Login of a user with a TOTP factor, then /auth/mfa/verify: ÷ login shows that verify adds no Argon2id.
        # In slices alternating with the login arm's, as its Argon2id floor (run_paired).
        post("login-mfa-verify", "/auth/mfa/verify", floor="login", target=0.8, kind="client",
             command=MfaArm(stack, password_hash, PASSWORD), paired_with="login", **hashing),
        post("login-unknown", "/auth/login", expect="401", **hashing),
        post("login-legacy-wrong", "/auth/login", expect="401", **hashing),
        post("request-pass", "/auth/request-pass"),
        post("request-pass-unknown", "/auth/request-pass"),
        post("email-code", "/auth/email-code"),
        post("email-code-unknown", "/auth/email-code"),
        post("sign-up", "/auth/sign-up", floor="argon2-hash", **hashing),
        # OpenID Connect (issue 39): discovery and JWKS are cached-key JSON; the code exchange deletes the
        # code's row and signs an ES256 access token, an HS256 refresh token and an RS256 ID token, each
        # request a fresh code (bench/pools.py).
        Arm("oidc-discovery", "/oidc/1/.well-known/openid-configuration", port=stack.http_port, floor="hello",
            target=0.7),
        Arm("oidc-jwks", "/oidc/1/jwks", port=stack.http_port, floor="hello", target=0.7),
        post("oidc-token-code", "/oidc/1/token", floor="hello-delete-rs256", target=0.8,
             pool=CodePool(stack.sql, args.out, "boidc")),
        post("refresh-token-under-login-flood", "/auth/refresh-token", floor="refresh-token", target=0.4,
             kind="flood", pool=rotating("bflood")),
        # Floors measured inside the rounds too, so they share the rounds' conditions.
        floor_arm(stack, nproc, "argon2-verify-fastest", *fastest_loop, password_hash, PASSWORD, paired_with="login"),
        floor_arm(stack, nproc, "argon2-hash", "argon2_impls", "loop", "hash", password_hash, PASSWORD),
    ], post("login-flood", "/auth/login", files["login"], **hashing)


def run_sender_rounds(stack, args, proto):
    """The sender arms, interleaved per round; {arm: [result per round]}."""
    log(f"sender: {args.mails} mails per run x {args.rounds} rounds")
    stack.sql(f"DELETE FROM svc_notification_log WHERE id <> {proto}; "
              f"UPDATE svc_notification_log SET status = 'Sent' WHERE id = {proto};")
    mail = {"sender": [], "smtp-loop": []}
    replay = []
    tls_conf = tls_config(stack, args.tls_smtp_port) if args.tls_smtp_port else None
    for _ in range(args.rounds):
        sender_round(stack, proto, args.mails, replay, mail, tls_conf)
    return mail

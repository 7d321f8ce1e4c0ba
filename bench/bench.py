#!/usr/bin/python3
"""The benchmark run behind `make bench` (started by scripts/bench.sh, which
builds everything, starts the stack and the hello program, and always stops
them). Stdlib only.

Loads the data set, warms up, runs every wrk arm interleaved over the
rounds, measures the floors (static, hello, raw Argon2id, raw push crypto,
minimal SMTP loop), and writes bench/results.json and docs/benchmarks.md.
"""

import argparse
import base64
import datetime
import hashlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLK_TCK = os.sysconf("SC_CLK_TCK")
PASSWORD = "Bench@2026!"
USERS = 100_000
USER_ID_BASE = 1000          # bench user n has id USER_ID_BASE + n
SITES = 10
TEMPLATES_PER_SITE = 5
FOLDERS_PER_SITE = 100
FOLDER_ID_BASE = 100_000
FOLDER_LINKS = 10_000
LINKS_PER_USER = 5
CUSTOMERS = 100
CUSTOMER_ID_BASE = 1000      # bench customer n has id CUSTOMER_ID_BASE + n
LEGACY_USERS = 20_000        # PHP openssl_encrypt (AES) passwords; enough that no one hits the login throttle
LEGACY_ID_BASE = 300_000
HASHING_PATHS = ("/auth/login", "/auth/sign-up", "/auth/reset-pass", "/auth/mfa/disable")
# The routes nginx sends to the outbound pool (kOutbound; tests/unit/outbound_routes_test.cpp).
OUTBOUND_PATHS = ("/message/sendPush", "/message/notification", "/auth/user-sms-code")


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def run(cmd, check=True, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise RuntimeError(f"{cmd[0]} exited {r.returncode}: {r.stderr.strip()[-2000:]}")
    return r


class Stack:
    """The running stack (scripts/stack.sh state directory) and its processes."""

    def __init__(self, args):
        self.dir = Path(args.stack)
        env = {}
        for line in (self.dir / "env").read_text().splitlines():
            k, _, v = line.partition("=")
            env[k] = v
        self.http_port = int(env["SVC_HTTP_PORT"])
        self.smtp_port = int(env["SVC_SMTP_PORT"])
        self.push_port = int(env["SVC_PUSH_PORT"])
        self.site_key = env.get("SITE_KEY", "")  # the demo site 1's x-site-key
        self.bench_port = args.bench_port
        self.keep_port = args.keep_port
        self.bin = Path(args.bin)
        self.helpers = Path(args.helpers)
        self.config = self.dir / "svc.conf"
        self.hello_pid = int(Path(args.hello_pid).read_text())
        self.fcgi_log = self.dir / "svc-fcgi.log"
        conf = self.config.read_text()
        self.workers = int(re.search(r"^workers = (\d+)", conf, re.M).group(1))
        self.hashing_workers = int(re.search(r"^hashing_workers = (\d+)", conf, re.M).group(1))
        self.max_requests = int(re.search(r"^max_requests = (\d+)", conf, re.M).group(1))

    def pid(self, name):
        return int((self.dir / "pids" / f"{name}.pid").read_text())

    def sql(self, query, db="svc"):
        r = run(["mariadb", "--no-defaults", f"--socket={self.dir / 'mysql.sock'}", "-uroot", "-N", "-B", db],
                input="SET time_zone = '+00:00';\n" + query)
        return r.stdout

    def admin(self, *argv, stdin=None):
        return run([str(self.bin / "svc-admin"), "--config", str(self.config), *argv], input=stdin).stdout.strip()

    def url(self, path, port=None):
        return f"http://127.0.0.1:{port or self.http_port}{path}"


# --- /proc accounting -----------------------------------------------------------

def proc_table():
    """{pid: (ppid, utime+stime, cutime+cstime)} in clock ticks."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        table[int(entry)] = (int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14]))
    return table


def children(table, pid):
    return [p for p, (ppid, _, _) in table.items() if ppid == pid]


def cpu_ticks(roots):
    """CPU ticks of each root process, its reaped children (cutime) and its
    live children: a worker that was recycled during an arm is still counted."""
    table = proc_table()
    total = 0
    for root in roots:
        if root not in table:
            continue
        _, own, reaped = table[root]
        total += own + reaped + sum(table[c][1] for c in children(table, root))
    return total


def status_kib(pid, key):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


class LogTail:
    """The svc-fcgi log lines written since the last call (the file is then
    emptied: the workers append with O_APPEND, so truncating is safe). Keeps
    warnings and errors in bench/out/svc-fcgi-problems.log and learns which
    worker pid belongs to which pool from the paths it served."""

    def __init__(self, stack, keep):
        self.path = stack.fcgi_log
        self.keep = keep
        self.pools = {}

    def take(self):
        """[(pid, path)] of the request lines since the last call."""
        try:
            with open(self.path, "r", errors="replace") as f:
                lines = f.read().splitlines()
            os.truncate(self.path, 0)
        except OSError:
            return []
        problems = [l for l in lines if '"level":"error"' in l or '"level":"warn"' in l]
        if problems:
            with open(self.keep, "a") as f:
                f.write("\n".join(problems[:200]) + "\n")
        served = []
        for line in lines:
            if '"event":"request"' not in line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            pid, path = rec.get("pid"), rec.get("path")
            served.append((pid, path))
            if path in HASHING_PATHS:
                self.pools[pid] = "hashing"
            elif path in OUTBOUND_PATHS:
                self.pools[pid] = "outbound"
            else:
                self.pools.setdefault(pid, "main")
        return served


# --- data set ----------------------------------------------------------------------

# The x-site-key of the bench's own sites 2..SITES (site 1 is the stack's demo
# site, whose key is SITE_KEY in the stack's env file).
BENCH_SITE_KEY = "bench-site-key-not-a-secret"


def site_headers(stack, site):
    """The wrk arm header text of a backend call of `site` (id and key)."""
    return "site-id: %d|x-site-key: %s" % (site, stack.site_key if site == 1 else BENCH_SITE_KEY)

def legacy_aes(stack):
    """PASSWORD as the PHP service stored it: base64(iv . openssl_encrypt(pw, 'aes-256-cbc', key, RAW, iv)),
    the key NUL-padded to 32 bytes as PHP does."""
    key = re.search(r"^legacy_password_key\s*=\s*(.*)$", stack.config.read_text(), re.M).group(1).strip()
    iv = os.urandom(16)
    ct = subprocess.run(["openssl", "enc", "-aes-256-cbc", "-K", key.encode()[:32].ljust(32, b"\0").hex(),
                         "-iv", iv.hex()], input=PASSWORD.encode(), capture_output=True, check=True).stdout
    return base64.b64encode(iv + ct).decode()


def load_data(stack, out):
    log("loading the data set")
    password_hash = stack.admin("hash-password", stdin=PASSWORD + "\n")
    assert password_hash.startswith("$argon2id$"), password_hash
    sub_p256dh, sub_auth = run([str(stack.helpers / "push_raw"), "subscription"]).stdout.split()
    stack.admin("vapid-keys", "--site", "1")
    t0 = time.monotonic()
    stack.sql(f"""
INSERT INTO svc_sites (id, name, domain, reset_url, allowed_redirect_hosts, email_from, vapid_subject, api_key_hash)
  SELECT seq, CONCAT('Bench site ', seq), CONCAT('site', seq, '.example'), 'http://127.0.0.1/reset',
         'localhost,127.0.0.1', CONCAT('Bench ', seq, ' <no-reply@site', seq, '.example>'), 'mailto:admin@demo.example',
         '{hashlib.blake2b(BENCH_SITE_KEY.encode(), digest_size=32).hexdigest()}'
  FROM seq_2_to_{SITES};
INSERT INTO svc_notifications (site_id, event, enabled, subject, content)
  SELECT s.seq, CONCAT('bench-', e.seq), 1, CONCAT('Order [order] for [name] (', e.seq, ')'),
         CONCAT('<html><body><p>Hello [name],</p><p>your order <b>[order]</b> has shipped.</p>',
                '<p>Track it at <a href="https://shop.example/track/[order]">shop.example</a>.</p>',
                '<p>Template ', e.seq, ' of site ', s.seq, '.</p></body></html>')
  FROM seq_1_to_{SITES} s, seq_1_to_{TEMPLATES_PER_SITE} e;
INSERT INTO svc_users (id, user_email, password, first_name, last_name, primary_role, mobile)
  SELECT {USER_ID_BASE} + seq, CONCAT('bench', seq, '@example.com'), '{password_hash}', 'Bench',
         CONCAT('User', seq), IF(seq % 10 = 0, 'admin', 'user'), CONCAT('+1555', LPAD(seq, 7, '0'))
  FROM seq_1_to_{USERS};
INSERT INTO svc_folders (id, site_id, name)
  SELECT {FOLDER_ID_BASE} + seq, ((seq - 1) DIV {FOLDERS_PER_SITE}) + 1, CONCAT('Folder ', seq)
  FROM seq_1_to_{SITES * FOLDERS_PER_SITE};
INSERT INTO svc_related (master_table, master_id, linked_table, linked)
  SELECT 'svc_users', {USER_ID_BASE} + ((seq - 1) DIV {LINKS_PER_USER}) + 1, 'svc_folders',
         {FOLDER_ID_BASE} + ((((seq - 1) DIV {LINKS_PER_USER}) + 1) % {SITES}) * {FOLDERS_PER_SITE}
           + ((seq - 1) % {LINKS_PER_USER}) * 7 + 1
  FROM seq_1_to_{FOLDER_LINKS};
INSERT INTO svc_customers (id, site_id, name, pushsubscription, p256dh, auth)
  SELECT {CUSTOMER_ID_BASE} + seq, 1, CONCAT('Customer ', seq), CONCAT('http://127.0.0.1:{stack.push_port}/push/', seq),
         '{sub_p256dh}', '{sub_auth}'
  FROM seq_1_to_{CUSTOMERS};
INSERT INTO svc_users (id, user_email, password, first_name, last_name, primary_role)
  SELECT {LEGACY_ID_BASE} + seq, CONCAT('legacy', seq, '@example.com'), '{legacy_aes(stack)}', 'Legacy', 'User', 'user'
  FROM seq_1_to_{LEGACY_USERS};
ANALYZE TABLE svc_users, svc_related, svc_folders, svc_notifications, svc_customers;
""")
    counts = stack.sql("SELECT (SELECT COUNT(*) FROM svc_users), (SELECT COUNT(*) FROM svc_related), "
                       "(SELECT COUNT(*) FROM svc_notifications), (SELECT COUNT(*) FROM svc_sites);").split()
    log(f"data set loaded in {time.monotonic() - t0:.1f}s: users={counts[0]} links={counts[1]} "
        f"templates={counts[2]} sites={counts[3]}")

    rnd = random.Random(7)
    files = {}

    def write(name, lines):
        path = out / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n")
        files[name] = str(path)

    # login: random known users (one shared hash, so every verify costs the same)
    write("login", [json.dumps({"email": f"bench{rnd.randint(1, USERS)}@example.com", "password": PASSWORD,
                                "appID": 1}) for _ in range(2000)])
    write("login-unknown", ['\t' + json.dumps({"email": "nobody-{uniq}@example.com", "password": PASSWORD,
                                               "appID": 1})])
    # the same wrong password for random legacy-AES users (each verify is microseconds without the dummy)
    write("login-legacy-wrong", [json.dumps({"email": f"legacy{rnd.randint(1, LEGACY_USERS)}@example.com",
                                             "password": "Wrong@2026!", "appID": 1}) for _ in range(2000)])
    # request-pass: registered users (mailed) and unknown addresses (not), same site
    write("request-pass", [json.dumps({"email": f"bench{rnd.randint(1, USERS)}@example.com", "appID": 2})
                           for _ in range(2000)])
    write("request-pass-unknown", ['\t' + json.dumps({"email": "nobody-{uniq}@example.com", "appID": 2})])
    write("sign-up", ['\t' + json.dumps({"email": "new-{uniq}@example.com", "password": "Analytical@1",
                                         "firstname": "Ada", "lastname": "Lovelace", "appID": 1})])
    # refresh-token: tokens of 16 real logins
    pairs = []
    for _ in range(16):
        body = json.dumps({"email": f"bench{rnd.randint(1, USERS)}@example.com", "password": PASSWORD}).encode()
        req = urllib.request.Request(stack.url("/auth/login"), data=body,
                                     headers={"Content-Type": "application/json"})
        token = json.loads(urllib.request.urlopen(req, timeout=30).read())["token"]
        pairs.append(json.dumps({"payload": {"access_token": token["access_token"],
                                             "refresh_token": token["refresh_token"]}}))
    write("refresh-token", pairs)
    # user-email: encrypted ids of 64 random users
    write("user-email", [json.dumps({"userId": stack.admin("mint-user-id", "--user",
                                                             str(USER_ID_BASE + rnd.randint(1, USERS)),
                                                             "--ttl", "2h")}) for _ in range(64)])
    # getFolderLimits: users with folder links, in the site their folders belong to
    linked_users = FOLDER_LINKS // LINKS_PER_USER
    lines = []
    for _ in range(1000):
        u = rnd.randint(1, linked_users)
        app = (u % SITES) + 1
        lines.append(site_headers(stack, app) + "\t" +
                     json.dumps({"appID": app, "table": "svc_folders", "userId": USER_ID_BASE + u}))
    write("getFolderLimits", lines)
    # notification: 10 sites x 5 templates, site-id header per request
    lines = []
    for _ in range(1000):
        site = rnd.randint(1, SITES)
        lines.append(site_headers(stack, site) + "\t" + json.dumps({
            "event": f"bench-{rnd.randint(1, TEMPLATES_PER_SITE)}", "email": f"rcpt{rnd.randint(1, 9999)}@example.com",
            "data": {"name": "Ada <Lovelace>", "order": str(rnd.randint(1000, 99999))}}))
    write("notification", lines)
    # sendPush: customers of site 1
    lines = []
    for c in range(1, 33):
        token = stack.admin("mint-customer-id", "--customer", str(CUSTOMER_ID_BASE + c), "--ttl", "2h")
        lines.append(site_headers(stack, 1) + "\t" + json.dumps({"customerID": token, "title": "Hi", "message": "Your order shipped",
                                                 "data": {"order": 42}}))
    write("push", lines)

    # One real notification: the prototype row the sender arms copy.
    body = json.dumps({"event": "bench-1", "email": "proto@example.com",
                       "data": {"name": "Ada <Lovelace>", "order": "4242"}}).encode()
    req = urllib.request.Request(stack.url("/message/notification"), data=body,
                                 headers={"Content-Type": "application/json", "site-id": "1",
                                          "x-site-key": stack.site_key})
    assert json.loads(urllib.request.urlopen(req, timeout=30).read())["status"] == "Success"
    proto = int(stack.sql("SELECT MAX(id) FROM svc_notification_log WHERE recipient = 'proto@example.com';").strip())
    return files, password_hash, proto, counts


# --- wrk arms ----------------------------------------------------------------------

class Arm:
    """kind: "http" (one wrk run), "flood" (wrk while a login flood runs) or
    "raw" (a floor program in command, printing ops_per_s)."""

    def __init__(self, name, path=None, method="GET", file="-", port=None, conns=None, expect="2xx", floor=None,
                 target=None, kind="http", command=None):
        self.name, self.path, self.method, self.file = name, path, method, file
        self.port, self.conns, self.expect = port, conns, expect
        self.floor, self.target, self.kind, self.command = floor, target, kind, command


def wrk_cmd(stack, arm, seconds, conns, prefix, timeout="5s"):
    url = stack.url(arm.path, arm.port)
    seconds = max(1, int(round(float(seconds))))  # wrk takes whole seconds
    return ["wrk", "-t1", f"-c{conns}", f"-d{seconds}s", f"--timeout={timeout}", "--latency",
            "-s", str(REPO / "bench" / "wrk" / "arm.lua"), url, "--", arm.method, arm.file, arm.expect, prefix]


def parse_wrk(stdout):
    for line in stdout.splitlines():
        if line.startswith("BENCH "):
            return json.loads(line[6:])
    raise RuntimeError("wrk printed no BENCH line:\n" + stdout)


def measure(stack, arm, seconds, conns, prefix, tail, roots, flood=None, timeout="5s"):
    """One wrk run of an arm: throughput, latency, unexpected statuses, CPU
    per request over nginx + svc-fcgi (both pools) + mysqld + hello, and the
    peak RSS of the workers that served it."""
    tail.take()
    flood_proc = None
    if flood is not None:
        flood_proc = subprocess.Popen(wrk_cmd(stack, flood, seconds + 2, flood.conns, prefix + "f"),
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
    ticks0, t0 = cpu_ticks(roots), time.monotonic()
    r = run(wrk_cmd(stack, arm, seconds, conns, prefix, timeout), check=False)
    ticks1, t1 = cpu_ticks(roots), time.monotonic()
    if flood_proc is not None:
        fout, _ = flood_proc.communicate(timeout=seconds + 60)
        flood_res = parse_wrk(fout)
    res = parse_wrk(r.stdout)
    served = {pid for pid, path in tail.take() if path == arm.path}
    hwm = [status_kib(pid, "VmHWM") for pid in served]
    hwm = [h for h in hwm if h is not None]
    reqs = res["requests"]
    errors = sum(res["errors"].values())
    out = {
        "rps": reqs / (res["duration_us"] / 1e6),
        "requests": reqs,
        "p50_ms": res["latency_us"]["p50"] / 1000,
        "p99_ms": res["latency_us"]["p99"] / 1000,
        "max_ms": res["latency_us"]["max"] / 1000,
        "unexpected": res["unexpected"],
        "unexpected_statuses": res["unexpected_statuses"],
        "socket_errors": res["errors"],
        "cpu_us_per_req": (ticks1 - ticks0) * 1e6 / CLK_TCK / reqs if reqs else None,
        "cpu_cores": (ticks1 - ticks0) / CLK_TCK / (t1 - t0),
        "peak_rss_kib": max(hwm) if hwm else None,
        "valid": res["unexpected"] == 0 and errors == 0 and reqs > 0,
    }
    if flood is not None:
        out["flood"] = {"rps": flood_res["requests"] / (flood_res["duration_us"] / 1e6),
                        "unexpected": flood_res["unexpected"], "p50_ms": flood_res["latency_us"]["p50"] / 1000}
    return out


def measure_raw(arm, seconds):
    """A floor program: ops/s in-process, one process per core."""
    secs = str(max(1, int(round(float(seconds)))))
    r = run([part.replace("{seconds}", secs) for part in arm.command], check=False)
    try:
        res = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        res = {"ops_per_s": 0, "error": r.stderr.strip()[-500:]}
    return {"rps": res["ops_per_s"], "requests": res.get("ops", 0), "p50_ms": None, "p99_ms": None,
            "max_ms": None, "unexpected": 0, "unexpected_statuses": "",
            "socket_errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0}, "cpu_us_per_req": None,
            "cpu_cores": None, "peak_rss_kib": None, "valid": r.returncode == 0 and res["ops_per_s"] > 0,
            "procs": res.get("procs")}


def compare_argon2(stack, password_hash, rounds=3, per_round=5):
    """Per-verify ms of every Argon2id implementation bench/argon2_impls.cpp was built with,
    interleaved in one run (each candidate in a fresh process, one untimed warm-up verify)."""
    exe = stack.helpers / "argon2_impls"
    if not exe.exists():
        return []
    r = run([str(exe), "compare", password_hash, PASSWORD, str(rounds), str(per_round)], check=False)
    impls = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    for i in impls:
        log(f"  argon2id {i['impl']:16s} {i['median_ms']:7.2f} ms/verify (p90 {i['p90_ms']:.2f}, n {i['n']}), "
            f"{i['faults_per_verify']:.0f} faults/verify, peak RSS {i['rss_kib'] / 1024:.1f} MiB")
    return impls


def compare_token_algs(stack, rounds=5, ms=200):
    """Access-token sign+verify per token, ES256 vs EdDSA vs HS256 in one run (bench/token_sign.cpp)."""
    r = run([str(stack.helpers / "token_sign"), str(rounds), str(ms)], check=False)
    algs = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    for a in algs:
        log(f"  access token {a['alg']:6s} sign {a['sign_us']:7.1f} us + verify {a['verify_us']:7.1f} us "
            f"= {a['sign_verify_us']:7.1f} us/token")
    return algs


def run_arm(stack, arm, seconds, conns, prefix, tail, roots, flood):
    if arm.kind == "raw":
        return measure_raw(arm, seconds)
    return measure(stack, arm, seconds, conns, prefix, tail, roots, flood=flood if arm.kind == "flood" else None)


def median_of(runs, key):
    vals = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def summarize(runs):
    s = {k: median_of(runs, k) for k in ("rps", "p50_ms", "p99_ms", "max_ms", "cpu_us_per_req", "cpu_cores")}
    s["peak_rss_kib"] = max((r["peak_rss_kib"] for r in runs if r.get("peak_rss_kib")), default=None)
    s["unexpected"] = sum(r["unexpected"] for r in runs)
    s["unexpected_statuses"] = ";".join(r["unexpected_statuses"] for r in runs if r["unexpected_statuses"])
    s["socket_errors"] = sum(sum(r["socket_errors"].values()) for r in runs)
    s["valid"] = all(r["valid"] for r in runs)
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


def sender_round(stack, proto, count, replay, results, tls_conf=None):
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
    # the minimal SMTP loop, replaying those exact messages over one connection
    r = run(["/usr/bin/python3", str(REPO / "bench" / "smtp_loop.py"), "--port", str(stack.smtp_port), *replay],
            check=False)
    res = json.loads(r.stdout) if r.returncode == 0 else {"sent": 0, "seconds": 1, "per_s": 0}
    res["valid"] = r.returncode == 0 and res["sent"] == len(replay)
    results["smtp-loop"].append(res)
    # session reuse on and off, same Sender/SmtpMailer code (bench/sender_pass.cpp)
    if not (stack.helpers / "sender_pass").exists():
        return
    variants = [("", stack.config, count)]
    if tls_conf:
        variants.append(("-starttls", tls_conf, max(50, count // 4)))
    for (suffix, conf, n), reuse in ((v, r) for v in variants for r in ("1", "0")):
        key = ("sender-reuse" if reuse == "1" else "sender-no-reuse") + suffix
        before = queue_mails(stack, proto, n)
        r = run([str(stack.helpers / "sender_pass"), "--config", str(conf), "--reuse", reuse], check=False)
        try:
            res = json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            res = {"sent": 0, "seconds": 1, "connections": None, "error": r.stderr.strip()[-300:]}
        res["per_s"] = res["sent"] / res["seconds"] if res["seconds"] else 0
        res["valid"] = res["sent"] == n and sent_since(stack, before) == n
        results.setdefault(key, []).append(res)


# --- the run -------------------------------------------------------------------------

def render_only(results, doc):
    """Rewrites docs/benchmarks.md from bench/results.json (after editing
    bench/profile-notes.md or this renderer), without running anything."""
    r = json.loads(Path(results).read_text())
    Path(doc).write_text(render_markdown(r))


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--render-only":
        render_only(REPO / "bench" / "results.json", REPO / "docs" / "benchmarks.md")
        return
    p = argparse.ArgumentParser()
    p.add_argument("--stack", required=True)
    p.add_argument("--bin", required=True)
    p.add_argument("--helpers", required=True)
    p.add_argument("--hello-pid", required=True)
    p.add_argument("--bench-port", type=int, required=True)
    p.add_argument("--keep-port", type=int, required=True)
    p.add_argument("--keepalive", type=int, required=True)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--conns", type=int, default=32)
    p.add_argument("--hash-conns", type=int, default=8)
    p.add_argument("--mails", type=int, default=1000)
    p.add_argument("--tls-smtp-port", type=int, default=0)
    p.add_argument("--warmup", type=float, default=1)
    p.add_argument("--out", required=True)
    p.add_argument("--results", default=str(REPO / "bench" / "results.json"))
    p.add_argument("--doc", default=str(REPO / "docs" / "benchmarks.md"))
    # For iterating on one endpoint: only these arms (comma-separated) and
    # their floors, no keep_conn or sender runs; results go to --out only.
    p.add_argument("--only", default="")
    args = p.parse_args()
    started = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stack = Stack(args)
    secs = int(args.seconds) if float(args.seconds).is_integer() else args.seconds
    nproc = os.cpu_count()

    files, password_hash, proto, counts = load_data(stack, out)
    tail = LogTail(stack, out / "svc-fcgi-problems.log")
    roots = [stack.pid("nginx"), stack.pid("svc-fcgi"), stack.pid("mariadb"), stack.hello_pid]

    log("argon2id implementations, per verify (bench/argon2_impls.cpp)")
    argon2_impls = compare_argon2(stack, password_hash)
    fastest = min(argon2_impls, key=lambda i: i["median_ms"])["impl"] if argon2_impls else None
    # The login floor: a raw verify loop of the fastest implementation measured here.
    fastest_arm = (Arm("argon2-verify-fastest", kind="raw",
                       command=[str(stack.helpers / "argon2_impls"), "loop", fastest, password_hash, PASSWORD,
                                "{seconds}", str(nproc)]) if fastest else
                   Arm("argon2-verify-fastest", kind="raw",
                       command=[str(stack.helpers / "argon2_raw"), "verify", password_hash, PASSWORD, "{seconds}",
                                str(nproc)]))

    H = stack.http_port
    arms = [
        Arm("static", "/static", port=stack.bench_port),
        Arm("hello", "/hello", port=stack.bench_port, floor="static"),
        Arm("health", "/health", floor="hello", target=0.7),
        Arm("refresh-token", "/auth/refresh-token", "POST", files["refresh-token"], floor="hello", target=0.7),
        Arm("user-email", "/auth/user-email", "POST", files["user-email"], floor="hello", target=0.7),
        Arm("getFolderLimits", "/auth/getFolderLimits", "POST", files["getFolderLimits"], floor="hello", target=0.6),
        Arm("notification", "/message/notification", "POST", files["notification"], floor="hello", target=0.5),
        Arm("sign-out", "/auth/sign-out", "POST", floor="hello"),
        Arm("login", "/auth/login", "POST", files["login"], conns=args.hash_conns, floor="argon2-verify-fastest",
            target=0.9),
        Arm("login-unknown", "/auth/login", "POST", files["login-unknown"], conns=args.hash_conns, expect="401"),
        Arm("login-legacy-wrong", "/auth/login", "POST", files["login-legacy-wrong"], conns=args.hash_conns,
            expect="401"),
        Arm("request-pass", "/auth/request-pass", "POST", files["request-pass"]),
        Arm("request-pass-unknown", "/auth/request-pass", "POST", files["request-pass-unknown"]),
        Arm("sign-up", "/auth/sign-up", "POST", files["sign-up"], conns=args.hash_conns, floor="argon2-hash"),
        Arm("push", "/message/sendPush", "POST", files["push"], floor="push-raw"),
        Arm("refresh-token-under-login-flood", "/auth/refresh-token", "POST", files["refresh-token"],
            floor="refresh-token", target=0.4, kind="flood"),
        # Floors measured inside the rounds too, so they share the rounds' conditions.
        Arm("argon2-verify", kind="raw",
            command=[str(stack.helpers / "argon2_raw"), "verify", password_hash, PASSWORD, "{seconds}", str(nproc)]),
        fastest_arm,
        Arm("argon2-hash", kind="raw",
            command=[str(stack.helpers / "argon2_raw"), "hash", password_hash, PASSWORD, "{seconds}", str(nproc)]),
        Arm("push-raw", kind="raw", command=[str(stack.helpers / "push_raw"), "loop", "{seconds}", str(nproc)]),
    ]
    flood = Arm("login-flood", "/auth/login", "POST", files["login"], conns=args.hash_conns)
    for a in arms:
        a.port = a.port or H
    if args.only:
        arms = only_arms(arms, args.only.split(","))

    # Warm-up: every arm once, short (connections, prepared statements, caches).
    log(f"warm-up: {len(arms)} arms x {args.warmup}s")
    for a in arms:
        if a.kind != "raw":
            run_arm(stack, a, args.warmup, a.conns or args.conns, f"w-{a.name}", tail, roots, flood)
    time.sleep(1)
    idle_rss = {pid: (status_kib(pid, "VmRSS"), tail.pools.get(pid, "?"))
                for pid in children(proc_table(), stack.pid("svc-fcgi"))}

    # Rounds: arms interleaved A B C ... per round.
    runs = {a.name: [] for a in arms}
    for rnd in range(1, args.rounds + 1):
        log(f"round {rnd}/{args.rounds}: {len(arms)} arms x {secs}s")
        for a in arms:
            res = run_arm(stack, a, args.seconds, a.conns or args.conns, f"r{rnd}-{a.name}", tail, roots, flood)
            runs[a.name].append(res)
            lat = "" if res["p50_ms"] is None else f"  p50 {res['p50_ms']:7.2f} ms  p99 {res['p99_ms']:7.2f} ms"
            log(f"  {a.name:34s} {res['rps']:9.1f} {'ops' if a.kind == 'raw' else 'req'}/s{lat}"
                f"{'' if res['valid'] else '  INVALID ' + res['unexpected_statuses'] + ' ' + str(res['socket_errors'])}")

    if args.only:
        write_only_results(args, out, arms, runs)
        return
    # fastcgi_keep_conn: the production setting (off) against on + keepalive pool, once.
    log("fastcgi_keep_conn on vs off (GET /health, POST /auth/sign-out)")
    keep = {}
    for conns in (args.conns, 128):
        for path, method in (("/health", "GET"), ("/auth/sign-out", "POST")):
            for label, port in (("off", H), ("on", stack.keep_port)):
                a = Arm(path, path, method, port=port)
                keep[f"{label} {method} {path} c{conns}"] = measure(stack, a, min(args.seconds, 3), conns,
                                                                   f"k-{label}-{conns}", tail, roots, timeout="2s")

    # Sender arms, interleaved per round.
    log(f"sender: {args.mails} mails per run x {args.rounds} rounds")
    stack.sql(f"DELETE FROM svc_notification_log WHERE id <> {proto}; "
              f"UPDATE svc_notification_log SET status = 'Sent' WHERE id = {proto};")
    mail = {"sender": [], "smtp-loop": []}
    replay = []
    tls_conf = tls_config(stack, args.tls_smtp_port) if args.tls_smtp_port else None
    for _ in range(args.rounds):
        sender_round(stack, proto, args.mails, replay, mail, tls_conf)
    time.sleep(0.5)
    idle_rss_end = {pid: (status_kib(pid, "VmRSS"), tail.pools.get(pid, "?"))
                    for pid in children(proc_table(), stack.pid("svc-fcgi"))}

    results = assemble(args, stack, arms, runs, keep, mail, idle_rss, idle_rss_end, counts, password_hash,
                       time.monotonic() - started)
    results["argon2_impls"] = {"fastest": fastest, "runs": argon2_impls}
    results["token_algs"] = compare_token_algs(stack)
    Path(args.results).write_text(json.dumps(results, indent=2) + "\n")
    Path(args.doc).write_text(render_markdown(results))
    log(f"wrote {args.results} and {args.doc} ({results['run_seconds']:.0f}s)")
    print(render_table(results))


def only_arms(arms, names):
    """The named arms and, before them, the floors they are measured against."""
    by_name = {a.name: a for a in arms}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise SystemExit(f"bench: unknown arm(s) {', '.join(unknown)}; known: {', '.join(by_name)}")
    keep = set(names)
    for n in names:
        floor = by_name[n].floor
        while floor:
            keep.add(floor)
            floor = by_name[floor].floor
    return [a for a in arms if a.name in keep]


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
                            ("request-pass-unknown", "request-pass", "request-pass p50: unknown ÷ known user")):
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
        f"{s['warmup_seconds']} s per arm",
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
                                    "core (bench/argon2_impls.cpp loop)",
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
                  f"(bench/argon2_impls.cpp); fastest: **{r['argon2_impls']['fastest']}**, the login floor.", "",
                  "| implementation | ms/verify (median) | p90 | verifies | page faults/verify | peak RSS MiB |",
                  "|---|---:|---:|---:|---:|---:|"]
        for i in impls:
            lines.append(f"| {i['impl']} | {fmt(i['median_ms'])} | {fmt(i['p90_ms'])} | {i['n']} | "
                         f"{i['faults_per_verify']:.0f} | {fmt(i['rss_kib'] / 1024, 1)} |")
    argon_notes = REPO / "bench" / "argon2-notes.md"
    if argon_notes.exists():
        lines += ["", argon_notes.read_text().rstrip()]
    outbound_notes = REPO / "bench" / "outbound-notes.md"
    if outbound_notes.exists():
        lines += ["", outbound_notes.read_text().rstrip()]
    notes = REPO / "bench" / "profile-notes.md"
    if notes.exists():
        lines += ["", notes.read_text().rstrip()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()

"""Shared helpers of the cluster tests (tests/cluster): they drive the local
cluster of scripts/cluster.sh (state in $SVC_CLUSTER_DIR, its settings in
cluster.env), send traffic through the front nginx, read each Galera node
through its own MariaDB socket as root, inject faults with the cluster.sh
verbs and read what the SMTP sink received.

Standard library only; run with /usr/bin/python3. Every loop is bounded in
count and time; no assertion is about how long something took.
"""

import glob
import http.client
import json
import os
import subprocess
import threading
import time
import uuid

SOURCE_DIR = os.environ.get("SVC_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "../..")))
CLUSTER_DIR = os.environ.get("SVC_CLUSTER_DIR", os.path.join(SOURCE_DIR, ".cluster"))
SCRIPT = os.path.join(SOURCE_DIR, "scripts", "cluster.sh")


def _read_env():
    path = os.path.join(CLUSTER_DIR, "cluster.env")
    if not os.path.exists(path):
        raise RuntimeError("no running cluster: %s is missing (ctest starts it via cluster.up)" % path)
    env = {}
    with open(path) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                env[k] = v
    return env


ENV = _read_env()
FRONT_PORT = int(ENV["FRONT_PORT"])
DB_NODES = [int(n) for n in ENV["DB_NODES"].split()]
APP_HOSTS = [int(n) for n in ENV["APP_HOSTS"].split()]
SITE_KEY = ENV["SITE_KEY"]
MAIL_DIR = ENV["MAIL_DIR"]
PASSWORD = "Cluster@2026!"


def cluster(*args, check=True, timeout=300):
    """Runs scripts/cluster.sh VERB [N] against this cluster."""
    env = dict(os.environ, SVC_CLUSTER_DIR=CLUSTER_DIR)
    r = subprocess.run([SCRIPT] + [str(a) for a in args], env=env, capture_output=True, text=True,
                       timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError("cluster.sh %s failed (%d): %s" % (" ".join(map(str, args)), r.returncode,
                                                                r.stderr[-2000:]))
    return r


class SqlError(Exception):
    pass


def sql(node, statement, database="svc", sync_wait=True, timeout=60):
    """Runs SQL as root on one node's socket; rows as lists of strings. With
    sync_wait the node first applies every write the cluster committed
    before this statement (wsrep_sync_wait = 1), so a read is never stale."""
    prefix = "SET SESSION wsrep_sync_wait = 1; " if sync_wait else ""
    r = subprocess.run(["mariadb", "--no-defaults", "--default-character-set=utf8mb4",
                        "--socket=" + ENV["DB%d_SOCKET" % node], "-uroot", "-N", "-B", "--raw",
                        "--connect-timeout=5", database, "-e", prefix + statement],
                       capture_output=True, timeout=timeout)
    if r.returncode != 0:
        raise SqlError(r.stderr.decode("utf-8", "replace").strip())
    return [[None if c == "NULL" else c for c in line.split("\t")]
            for line in r.stdout.decode("utf-8", "replace").splitlines()]


def q(value):
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def wsrep(node):
    """{"state": wsrep_local_state, "status": wsrep_cluster_status, "size": ...}, or None when unreachable."""
    try:
        rows = sql(node, "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE "
                   "VARIABLE_NAME IN ('WSREP_LOCAL_STATE', 'WSREP_CLUSTER_STATUS', 'WSREP_CLUSTER_SIZE', "
                   "'WSREP_READY')", sync_wait=False, timeout=10)
    except (SqlError, subprocess.TimeoutExpired):
        return None
    v = {k.upper(): val for k, val in rows}
    return {"state": int(v.get("WSREP_LOCAL_STATE", "0") or 0), "status": v.get("WSREP_CLUSTER_STATUS"),
            "size": int(v.get("WSREP_CLUSTER_SIZE", "0") or 0), "ready": v.get("WSREP_READY")}


def wait_until(predicate, seconds, what, step=0.5):
    """Polls predicate() until it is true, at most `seconds`; fails with `what` otherwise."""
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %d s waiting for %s" % (seconds, what))
        time.sleep(step)


def primary_node(exclude=()):
    """A node that is Synced in the Primary component."""
    for n in DB_NODES:
        if n in exclude:
            continue
        w = wsrep(n)
        if w and w["state"] == 4 and w["status"] == "Primary":
            return n
    return None


def restore():
    """Brings every part of the cluster back (after an earlier test, failed or
    not): partitions healed, every node running and Synced, every app host
    with svc-fcgi and svc-sender."""
    for n in DB_NODES:
        cluster("heal-db", n)
    for n in DB_NODES:
        cluster("start-db", n)
    for n in APP_HOSTS:
        cluster("start-app", n)
    wait_until(lambda: all((wsrep(n) or {}).get("size") == len(DB_NODES) for n in DB_NODES), 120,
               "a cluster of %d Synced nodes" % len(DB_NODES))
    wait_until(lambda: request("GET", "/health")[0] == 200, 30, "the front nginx's /health")


# --- HTTP through the front nginx ------------------------------------------
def request(method, path, body=None, headers=None, timeout=30):
    """(status, parsed JSON or None); status 0 when the connection failed."""
    conn = http.client.HTTPConnection("127.0.0.1", FRONT_PORT, timeout=timeout)
    hdrs = {"Content-Type": "application/json"}
    hdrs.update(headers or {})
    try:
        conn.request(method, path, body=json.dumps(body).encode() if body is not None else None, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read()
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            data = None
        return resp.status, data
    except (OSError, http.client.HTTPException):
        return 0, None
    finally:
        conn.close()


def site_headers():
    return {"site-id": ENV["SITE_ID"], "x-site-key": SITE_KEY}


def sign_up(email):
    return request("POST", "/auth/sign-up", {"email": email, "password": PASSWORD, "firstname": "Ada",
                                             "lastname": "Lovelace", "appID": 1})


def login(email):
    return request("POST", "/auth/login", {"email": email, "password": PASSWORD, "appID": 1})


def refresh(tokens):
    return request("POST", "/auth/refresh-token", {"payload": {"access_token": tokens["access_token"],
                                                               "refresh_token": tokens["refresh_token"]}})


def notification(email):
    return request("POST", "/message/notification", {"event": "welcome-email", "email": email,
                                                     "data": {"name": "Ada"}}, headers=site_headers())


def tag():
    return uuid.uuid4().hex[:10]


class Load:
    """Client threads sending a mix of requests through the front nginx for at
    most `seconds` and `max_requests`; every request recorded as
    (kind, key, start, end, status). kinds: refresh, login, sign-up, notification."""

    def __init__(self, kinds, threads=6, seconds=60, max_requests=3000, prefix=None):
        self.kinds = kinds
        self.threads = threads
        self.seconds = seconds
        self.max_requests = max_requests
        self.prefix = prefix or tag()
        self.records = []
        self.lock = threading.Lock()
        self.stop_flag = threading.Event()
        self.counter = 0
        self.user = None
        self.tokens = None

    def prepare(self):
        if "login" in self.kinds or "refresh" in self.kinds:
            self.user = "load-%s@example.com" % self.prefix
            status, body = sign_up(self.user)
            assert status == 200, (status, body)
            self.tokens = body["token"]

    def _next(self):
        with self.lock:
            if self.counter >= self.max_requests:
                return None
            self.counter += 1
            return self.counter

    def _one(self, i):
        kind = self.kinds[i % len(self.kinds)]
        key = "%s-%d@example.com" % (self.prefix, i)
        start = time.monotonic()
        if kind == "sign-up":
            status, _ = sign_up("su-" + key)
            key = "su-" + key
        elif kind == "notification":
            status, _ = notification("nt-" + key)
            key = "nt-" + key
        elif kind == "login":
            status, _ = login(self.user)
        else:
            # The newest pair, as a client keeps it: refresh tokens rotate,
            # and one presented again after [tokens] refresh_reuse_seconds
            # revokes the session (a slow phase can outlast that window).
            with self.lock:
                tokens = self.tokens
            status, body = refresh(tokens)
            if status == 200:
                with self.lock:
                    if self.tokens is tokens:
                        self.tokens = body["token"]
        with self.lock:
            self.records.append((kind, key, start, time.monotonic(), status))

    def _run(self, deadline):
        while not self.stop_flag.is_set() and time.monotonic() < deadline:
            i = self._next()
            if i is None:
                return
            self._one(i)

    def start(self):
        deadline = time.monotonic() + self.seconds
        self.workers = [threading.Thread(target=self._run, args=(deadline,), daemon=True)
                        for _ in range(self.threads)]
        for t in self.workers:
            t.start()

    def completed(self):
        with self.lock:
            return len(self.records)

    def wait_completed(self, count, seconds):
        wait_until(lambda: self.completed() >= count, seconds, "%d completed requests" % count, step=0.05)

    def stop(self):
        self.stop_flag.set()
        for t in self.workers:
            t.join(timeout=60)

    def join(self):
        for t in self.workers:
            t.join(timeout=self.seconds + 60)

    def in_flight(self, t0, t1):
        """Requests that had started before t1 and had not finished at t0."""
        with self.lock:
            return [r for r in self.records if r[2] <= t1 and r[3] >= t0] + []

    def acknowledged(self, kind):
        return [r[1] for r in self.records if r[0] == kind and r[4] == 200]

    def failed(self):
        return [r for r in self.records if r[4] != 200]


def started_before_and_open(load, t0, t1):
    """In flight at a fault that lasted from t0 to t1: started before t1 and
    not finished before t0 (finished ones are in records; the unfinished ones
    are counted when they finish, so call this after load.stop())."""
    return [r for r in load.records if r[2] <= t1 and r[3] >= t0]


def missing_rows(node, table, column, keys):
    """The keys with no row in table.column, read on `node` (after a sync wait)."""
    missing = []
    keys = list(keys)
    for i in range(0, len(keys), 500):
        chunk = keys[i:i + 500]
        found = {r[0] for r in sql(node, "SELECT %s FROM %s WHERE %s IN (%s)" %
                                   (column, table, column, ", ".join(q(k) for k in chunk)))}
        missing += [k for k in chunk if k not in found]
    return missing


# --- outbox and sink ----------------------------------------------------------
def queue_mails(node, event, count):
    """`count` Pending outbox rows of site 1 for event, recipients rcpt-N-EVENT@example.com."""
    sql(node, "INSERT INTO svc_notification_log (site_id, event, recipient, `from`, subject, body, status,"
        " next_attempt_at, created_at) SELECT 1, %s, CONCAT('rcpt-', seq, '-', %s, '@example.com'),"
        " 'Demo <no-reply@demo.example>', 'Hello', '<p>Hello</p>', 'Pending', UTC_TIMESTAMP(),"
        " UTC_TIMESTAMP() FROM seq_1_to_%d" % (q(event), q(event), count), sync_wait=False)


def outbox_counts(node, event):
    return {status: int(n) for status, n in sql(node, "SELECT status, COUNT(*) FROM svc_notification_log "
                                                "WHERE event = %s GROUP BY status" % q(event))}


def delivered(event):
    """{recipient: times} over the sink's mail for one event's recipients."""
    counts = {}
    needle = "-" + event + "@example.com"
    for path in glob.glob(os.path.join(MAIL_DIR, "*.eml")):
        with open(path, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
        for line in head.splitlines():
            if line.startswith("X-Sink-Rcpt-To:"):
                for rcpt in line.split(":", 1)[1].split(","):
                    rcpt = rcpt.strip()
                    if rcpt.endswith(needle):
                        counts[rcpt] = counts.get(rcpt, 0) + 1
                break
    return counts


def app_problems(max_lines=40):
    """The last error and warn lines of both app hosts' svc-fcgi logs, for a
    failing assertion's message: `cluster.sh down` (the suite's cleanup)
    removes the state directory, so CI keeps only what a test printed."""
    lines = []
    for n in APP_HOSTS:
        try:
            with open(os.path.join(CLUSTER_DIR, "app%d" % n, "svc-fcgi.log"), errors="replace") as f:
                lines += ["app%d: %s" % (n, line.rstrip()) for line in f
                          if '"level":"error"' in line or '"level":"warn"' in line]
        except OSError as e:
            lines.append("app%d: %s" % (n, e))
    return "\n".join(lines[-max_lines:]) or "(no error or warn lines in the app hosts' svc-fcgi logs)"


def sender_log(n):
    return os.path.join(CLUSTER_DIR, "app%d" % n, "svc-sender.log")


def log_offsets():
    """Where each app host's sender log ends now (for sent_since)."""
    return {n: os.path.getsize(sender_log(n)) if os.path.exists(sender_log(n)) else 0 for n in APP_HOSTS}


def sent_since(offsets):
    """{app host: mails its sender reported sent} in its log after `offsets`."""
    out = {}
    for n, off in offsets.items():
        total = 0
        try:
            with open(sender_log(n), "rb") as f:
                f.seek(off)
                for line in f:
                    try:
                        rec = json.loads(line)
                    except ValueError:
                        continue
                    if rec.get("event") == "batch":
                        total += int(rec.get("sent", 0))
        except OSError:
            pass
        out[n] = total
    return out

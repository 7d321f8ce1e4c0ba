"""The "login + mfa verify" arm: each iteration is a password login of a
user with a TOTP factor (401 Second factor required + mfa_token) followed by
POST /auth/mfa/verify with a valid code (200, the token pair). Reported as
iterations/s ÷ the plain login arm: the verify step does no Argon2id (its
code check is an HMAC-SHA1, the mfa_token and recovery codes are keyed
digests; /auth/mfa/verify is not a kHashing route), so the ratio stays near
1 and a hash slipping into verify would halve it. Part of bench/bench.py;
stdlib only.

A TOTP time step is accepted once per user, so the arm enrols a pool of its
own users (ids MFA_ID_BASE + n, the data set's password hash, never in the
login arm's files) through the API, keeps their secrets, and computes each
code here (RFC 6238, SHA-1, 6 digits, 30 s). A user serves the current step
and the next one, then one step per 30 s; when every user has had its turn in
the window, a recovery code (10 per user, one keyed digest to check, too)
stands in, and an exhausted pool waits for the next step and says so
(`starved_s`, and the arm is then invalid). BENCH_MFA_USERS sets the pool
size (default 1500).
"""

import base64
import collections
import hashlib
import hmac
import http.client
import json
import os
import statistics
import struct
import threading
import time

from stack import CLK_TCK, cpu_ticks, log

MFA_ID_BASE = 500_000


def totp(secret_b32, step):
    key = base64.b32decode(secret_b32 + "=" * (-len(secret_b32) % 8))
    digest = hmac.new(key, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF
    return "%06d" % (value % 1_000_000)


class Client:
    """One keep-alive HTTP/1.1 connection to nginx; post() → (status, JSON or None)."""

    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def post(self, path, body, token=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        try:
            self.conn.request("POST", path, body=json.dumps(body) if body is not None else None, headers=headers)
            resp = self.conn.getresponse()
            raw = resp.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            raise
        try:
            return resp.status, json.loads(raw)
        except ValueError:
            return resp.status, None


class Pool:
    """The enrolled users; take() hands out (email, field, value) for one verify."""

    def __init__(self):
        self.lock = threading.Lock()
        self.users = collections.deque()  # [email, secret, last accepted step], least recently used first
        self.recovery = []                # (email, code)
        self.used_totp = self.used_recovery = 0
        self.starved = 0.0

    def take(self):
        while True:
            with self.lock:
                now = int(time.time()) // 30
                if self.users:
                    user = self.users[0]
                    # Never step now-1: the server may have moved on by the time it checks.
                    step = max(user[2] + 1, now)
                    if step <= now + 1:
                        self.users.rotate(-1)
                        user[2] = step
                        self.used_totp += 1
                        return user[0], "code", totp(user[1], step)
                if self.recovery:
                    self.used_recovery += 1
                    email, code = self.recovery.pop()
                    return email, "recovery_code", code
                wait = 30 - time.time() % 30 + 0.05
            self.starved += wait
            time.sleep(wait)  # every user has had this window's steps: wait for the next step


class MfaArm:
    """Callable as a "client" arm: (stack, seconds, conns, roots) → one result like arms.measure's."""

    def __init__(self, stack, password_hash, password, size=None):
        self.stack, self.password_hash, self.password = stack, password_hash, password
        self.size = size or int(os.environ.get("BENCH_MFA_USERS", "1500"))
        self.pool = None

    def enrol_one(self, client, n):
        email = f"mfa{n}@example.com"
        status, body = client.post("/auth/login", {"email": email, "password": self.password, "appID": 1})
        assert status == 200, (email, status, body)
        token = body["token"]["access_token"]
        status, body = client.post("/auth/mfa/totp/setup", None, token)
        assert status == 200, (email, status, body)
        secret = body["secret"]
        step = int(time.time()) // 30
        status, body = client.post("/auth/mfa/totp/confirm", {"code": totp(secret, step)}, token)
        assert status == 200, (email, status, body)
        return [email, secret, step], [(email, c) for c in body["recovery_codes"]]

    def prepare(self, conns):
        t0 = time.monotonic()
        self.stack.sql(f"""
DELETE FROM svc_users WHERE id > {MFA_ID_BASE} AND id <= {MFA_ID_BASE + self.size};
INSERT INTO svc_users (id, user_email, password, first_name, last_name, primary_role)
  SELECT {MFA_ID_BASE} + seq, CONCAT('mfa', seq, '@example.com'), '{self.password_hash}', 'Bench', 'Mfa', 'user'
  FROM seq_1_to_{self.size};
""")
        pool = Pool()
        todo = collections.deque(range(1, self.size + 1))
        errors = []
        recovery = []  # per user, its 10 codes

        def work():
            client = Client(self.stack.http_port)
            while True:
                with pool.lock:
                    if not todo or errors:
                        return
                    n = todo.popleft()
                try:
                    user, codes = self.enrol_one(client, n)
                except Exception as e:  # noqa: BLE001 - reported below, the arm cannot run
                    with pool.lock:
                        errors.append(repr(e))
                    return
                with pool.lock:
                    pool.users.append(user)
                    recovery.append(codes)

        threads = [threading.Thread(target=work) for _ in range(conns)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise RuntimeError("login-mfa-verify: enrolling the pool failed: " + errors[0])
        # Round-robin over the users (take() pops from the end): consecutive
        # recovery codes belong to different users, so parallel clients never
        # sign in as one user at once (the login throttle would count them).
        pool.recovery = [codes[i] for i in range(9, -1, -1) for codes in recovery]
        log(f"login-mfa-verify: {self.size} users enrolled in {time.monotonic() - t0:.1f}s")
        self.pool = pool

    def __call__(self, stack, seconds, conns, roots):
        if self.pool is None:
            self.prepare(conns)
        pool = self.pool
        pool.used_totp = pool.used_recovery = 0
        pool.starved = 0.0
        latencies, unexpected = [], collections.Counter()
        socket_errors = {"connect": 0, "read": 0, "write": 0, "timeout": 0}
        lock = threading.Lock()
        deadline = time.monotonic() + float(seconds)

        def work():
            client = Client(stack.http_port)
            mine = []
            while time.monotonic() < deadline:
                t = time.monotonic()
                try:
                    email, field, value = pool.take()
                    status, body = client.post("/auth/login", {"email": email, "password": self.password,
                                                               "appID": 1})
                    if status != 401 or not body or "mfa_token" not in body:
                        with lock:
                            unexpected[f"login {status}"] += 1
                        continue
                    status, body = client.post("/auth/mfa/verify", {"mfa_token": body["mfa_token"], field: value})
                    if status != 200 or not body or "token" not in body:
                        with lock:
                            unexpected[f"verify {status}"] += 1
                        continue
                except (OSError, http.client.HTTPException):
                    with lock:
                        socket_errors["read"] += 1
                    continue
                mine.append(time.monotonic() - t)
            with lock:
                latencies.extend(mine)

        ticks0, t0 = cpu_ticks(roots), time.monotonic()
        threads = [threading.Thread(target=work) for _ in range(conns)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ticks1, t1 = cpu_ticks(roots), time.monotonic()
        n = len(latencies)
        latencies.sort()
        pct = lambda p: latencies[min(n - 1, int(p * n))] * 1000 if n else None  # noqa: E731
        bad = sum(unexpected.values())
        return {
            "rps": n / (t1 - t0),
            "requests": n,
            "p50_ms": statistics.median(latencies) * 1000 if n else None,
            "p99_ms": pct(0.99),
            "max_ms": latencies[-1] * 1000 if n else None,
            "unexpected": bad,
            "unexpected_statuses": ",".join(f"{k}:{v}" for k, v in sorted(unexpected.items())),
            "socket_errors": socket_errors,
            "cpu_us_per_req": (ticks1 - ticks0) * 1e6 / CLK_TCK / n if n else None,
            "cpu_cores": (ticks1 - ticks0) / CLK_TCK / (t1 - t0),
            "peak_rss_kib": None,
            "valid": bad == 0 and sum(socket_errors.values()) == 0 and n > 0 and pool.starved == 0,
            "verified_by_totp": pool.used_totp,
            "verified_by_recovery_code": pool.used_recovery,
            "starved_s": pool.starved,
        }

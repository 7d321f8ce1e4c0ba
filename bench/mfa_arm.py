"""The "login-mfa-verify" arm, a sign-in wrk cannot script, as a "client" arm of bench/arms.py: callable as (stack,
seconds, conns) → a result of load.closed_loop, sets itself up on its first call (the warm-up's), and runs one whole
sign-in per iteration. Part of bench/bench.py.

A password login of a user with a TOTP factor (401 with an mfa_token), then POST /auth/mfa/verify with a valid code
(200, the token pair); ÷ the login arm. The verify step does no Argon2id (an HMAC-SHA1 code check, keyed digests for
the mfa_token and recovery codes; not a kHashing route), so the ratio stays near 1 and a hash slipping into verify
would halve it. A TOTP time step is accepted once per user, so the arm enrols a pool of its own users (ids
MFA_ID_BASE + n, the data set's password hash, never in the login arm's files) through the API and computes each code
here (RFC 6238, SHA-1, 6 digits, 30 s). A user serves the current step and the next one, then one step per 30 s; when
every user has had its turn in the window, a recovery code (10 per user) stands in, and an exhausted pool waits for
the next step and says so (`starved_s`; the arm is then invalid). BENCH_MFA_USERS sets the pool size (default 1500).
"""

import base64
import collections
import concurrent.futures
import hashlib
import hmac
import os
import struct
import time

from load import Client, closed_loop
from stack import log

MFA_ID_BASE = 500_000


def expect(what, status, body, want=200):
    """body when status is `want`; raises naming the setup step otherwise (the arm cannot run)."""
    if status != want:
        raise RuntimeError(f"{what}: HTTP {status}: {str(body)[:300]}")
    return body


def totp(secret_b32, step):
    key = base64.b32decode(secret_b32 + "=" * (-len(secret_b32) % 8))
    digest = hmac.new(key, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF
    return "%06d" % (value % 1_000_000)


class TotpPool:
    """The enrolled users; take() hands out (email, field, value) for one verify."""

    def __init__(self, users, recovery):
        self.users = collections.deque(users)  # [email, secret, last accepted step], least recently used first
        # Round-robin over the users (take() pops from the end): consecutive
        # recovery codes belong to different users, so parallel clients never
        # sign in as one user at once (the login throttle would count them).
        self.recovery = [codes[i] for i in range(9, -1, -1) for codes in recovery]
        self.used_totp = self.used_recovery = 0
        self.starved = 0.0

    def take(self):
        while True:
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
    def __init__(self, stack, password_hash, password):
        self.stack, self.password_hash, self.password = stack, password_hash, password
        self.size = int(os.environ.get("BENCH_MFA_USERS", "1500"))
        self.pool = None

    def enrol(self, n):
        """User n's TOTP factor: ([email, secret, step], its recovery codes as (email, code))."""
        client, email = Client(self.stack.url("")), f"mfa{n}@example.com"
        what = f"login-mfa-verify: enrolling {email}"
        body = expect(what, *client.post("/auth/login", {"email": email, "password": self.password, "appID": 1}))
        token = body["token"]["account_token"]  # the account routes take no site token (issue 36)
        secret = expect(what, *client.post("/auth/mfa/totp/setup", None, token))["secret"]
        step = int(time.time()) // 30
        body = expect(what, *client.post("/auth/mfa/totp/confirm", {"code": totp(secret, step)}, token))
        client.close()
        return [email, secret, step], [(email, c) for c in body["recovery_codes"]]

    def prepare(self, conns):
        t0 = time.monotonic()
        self.stack.sql(f"""
DELETE FROM svc_users WHERE id > {MFA_ID_BASE} AND id <= {MFA_ID_BASE + self.size};
INSERT INTO svc_users (id, user_email, password, first_name, last_name, primary_role, email_verified_at)
  SELECT {MFA_ID_BASE} + seq, CONCAT('mfa', seq, '@example.com'), '{self.password_hash}', 'Bench', 'Mfa', 'user', NOW()
  FROM seq_1_to_{self.size};
""")
        with concurrent.futures.ThreadPoolExecutor(conns) as ex:
            enrolled = list(ex.map(self.enrol, range(1, self.size + 1)))
        self.pool = TotpPool([u for u, _ in enrolled], [codes for _, codes in enrolled])
        log(f"login-mfa-verify: {self.size} users enrolled in {time.monotonic() - t0:.1f}s")

    def flow(self):
        """One sign-in, as load.closed_loop runs it."""
        email, field, value = self.pool.take()
        status, body = yield "/auth/login", {"email": email, "password": self.password, "appID": 1}
        if status != 401 or not isinstance(body, dict) or "mfa_token" not in body:
            return f"login {status}"
        status, body = yield "/auth/mfa/verify", {"mfa_token": body["mfa_token"], field: value}
        return None if status == 200 and isinstance(body, dict) and "token" in body else f"verify {status}"

    def __call__(self, stack, seconds, conns):
        if self.pool is None:
            self.prepare(conns)
        pool = self.pool
        pool.used_totp = pool.used_recovery = 0
        pool.starved = 0.0
        res = closed_loop(self.flow, [Client(stack.url("")) for _ in range(conns)], seconds)
        res.update({"valid": pool.starved == 0, "verified_by_totp": pool.used_totp,
                    "verified_by_recovery_code": pool.used_recovery, "starved_s": pool.starved})
        return res

"""The site management API's user search (issue 49 "Speed"): GET /admin/sites/{site}/users?q=PREFIX over 1,000,000
users of one pool, ÷ the getFolderLimits arm (target ≥ 0.5). Part of bench/bench.py; stdlib only.

Set up on its first run (the warm-up's): a site with a pool of its own, 1,000,000 users seeded by one INSERT ...
SELECT from MariaDB's sequence engine (seconds, not a million round trips), and a viewer of the site signed in with a
second factor as the tests make one (password, TOTP enrolment, then a fresh sign-in answered with a recovery code).
Each run signs in again (a fresh account token, whatever the runs' spacing) and sends the one search of the request
file. The search must be a range read of the pool's address index (uq_svc_users_pool_email), never a scan: the
EXPLAIN is logged, written to OUT/admin-user-search-explain.txt, and a plan on another key stops the bench.
"""

import time
from pathlib import Path

from arms import Arm
from load import Client
from mfa_arm import expect, totp
from stack import log

USERS = 1_000_000
PREFIX = "m12345"   # m12345@, m123450..m123459@, m1234500..: a page of 50 of 111 matches
DOMAIN = "search.bench.example"
ADMIN_PASSWORD = "Bench@Admin-2026"
INDEX = "uq_svc_users_pool_email"


class UserSearchArm(Arm):
    def __init__(self, stack, out, **kw):
        super().__init__("admin-user-search", None, "GET", port=stack.http_port, **kw)
        self.out = Path(out)
        self.site = self.pool_id = None
        self.email, self.recovery = None, []

    def seed(self, stack):
        t0 = time.monotonic()
        self.site = int(stack.admin("site", "create", "--name", "Bench user search", "--domain", DOMAIN,
                                    "--api-key", "none").splitlines()[-1])
        self.pool_id = int(stack.sql(f"SELECT user_pool FROM svc_sites WHERE id = {self.site}").strip())
        stack.sql(f"""
INSERT INTO svc_users (user_email, password, first_name, last_name, primary_role, pool_id)
  SELECT CONCAT('m', seq, '@{DOMAIN}'), '!', 'Bench', CONCAT('Search', seq), 'user', {self.pool_id}
  FROM seq_1_to_{USERS};
ANALYZE TABLE svc_users;
""")
        log(f"admin-user-search: {USERS} users in pool {self.pool_id} (site {self.site}) in "
            f"{time.monotonic() - t0:.1f}s")

    def explain(self, stack):
        """The plan of the service's page query (db/user_repo.cpp page_by_email); stops the bench on a scan."""
        plan = stack.sql(f"EXPLAIN SELECT * FROM svc_users WHERE pool_id = {self.pool_id}"
                         f" AND user_email LIKE '{PREFIX}%' AND user_email > '' ORDER BY user_email LIMIT 51")
        (self.out / "admin-user-search-explain.txt").write_text(plan)
        log(f"admin-user-search: EXPLAIN: {' '.join(plan.split())}")
        fields = plan.split("\t")
        if INDEX not in plan or "range" not in fields:
            raise SystemExit(f"admin-user-search: the search is not a range read of {INDEX}:\n{plan}")

    def enrol_admin(self, stack):
        self.email = f"search-admin.{time.time_ns()}@{DOMAIN}"
        stack.admin("user", "create", "--email", self.email, "--site", str(self.site), "--verified",
                    stdin=ADMIN_PASSWORD + "\n")
        stack.admin("site", "admin", "add", "--site", str(self.site), "--email", self.email, "--role", "viewer")
        client = Client(stack.url(""))
        body = expect("admin-user-search: sign-in", *client.post(
            "/auth/login", {"email": self.email, "password": ADMIN_PASSWORD, "appID": self.site}))
        token = body["token"]["account_token"]
        secret = expect("admin-user-search: TOTP setup", *client.post("/auth/mfa/totp/setup", None, token))["secret"]
        body = expect("admin-user-search: TOTP confirm", *client.post(
            "/auth/mfa/totp/confirm", {"code": totp(secret, int(time.time()) // 30)}, token))
        self.recovery = list(body["recovery_codes"])
        client.close()

    def sign_in(self, stack):
        """A fresh account token whose session passed the second factor (a recovery code each time)."""
        client = Client(stack.url(""))
        body = expect("admin-user-search: sign-in", *client.post(
            "/auth/login", {"email": self.email, "password": ADMIN_PASSWORD, "appID": self.site}), want=401)
        body = expect("admin-user-search: second factor", *client.post(
            "/auth/mfa/verify", {"mfa_token": body["mfa_token"], "recovery_code": self.recovery.pop()}))
        client.close()
        return body["token"]["account_token"]

    def wrk_cmd(self, stack, seconds, conns, prefix, timeout="5s"):
        if self.site is None:
            self.seed(stack)
            self.explain(stack)
            self.enrol_admin(stack)
            self.path = f"/admin/sites/{self.site}/users?q={PREFIX}&limit=50"
        self.file = str(self.out / "admin-user-search.txt")
        # One request line (bench/wrk/arm.lua): the header, a tab, no body.
        (self.out / "admin-user-search.txt").write_text(f"Authorization: Bearer {self.sign_in(stack)}\t\n")
        return super().wrk_cmd(stack, seconds, conns, prefix, timeout)

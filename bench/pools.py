"""Request lines that are good once, for the arms whose requests a server consumes (each run gets a batch of its own,
each line sent once: wrk/arm.lua's "once" order, mix.py's schedule). Stdlib only.

RefreshPool, for POST /auth/refresh-token with rotation (docs/decisions.md "Sessions"): a refresh token rotates on
first use and its later reuse revokes the session with 401, so a file of a few tokens replayed would measure 401s. A
batch: `count` sessions inserted straight into svc_sessions (generation 1, bench users, amr "pwd") and their refresh
JWTs minted here with the stack's [keys] jwt_kid / jwt_secret and the claims svc's sign_pair writes (crypto/jwt.hpp),
"sid" and "gen": 1; the access token beside it is a placeholder (the route only requires its presence).

CodePool, for the OpenID Connect code exchange (POST {issuer}/token, grant_type=authorization_code; a code is
single-use): the authorize flow (hosted sign-in with an Argon2id verify) costs far more than the exchange, so codes
go straight into the database as src/oidc/flow.cpp issue_code stores them: a svc session of a bench user per code
(site 1) and one svc_oauth_codes row (the SHA-256 hex of a random code, the bench's confidential client and redirect
URI, scope "openid email profile", a nonce, no PKCE), expiring in 300 s rather than 60 so a large batch does not eat
into its run.

Each pool deletes its previous batch before writing the next.
"""

import base64
import configparser
import hashlib
import hmac
import json
import math
import os
import re
import time
import urllib.parse
from pathlib import Path

from dataset import USER_ID_BASE, USERS

ACCESS_PLACEHOLDER = "bench-unused-access-token"  # /auth/refresh-token checks only that it is there
REFRESH_TTL = 30 * 86400
START_RATE = 40_000   # req/s assumed before a pool has seen a run of its arm (above the hello floor)
HEADROOM = 2.0        # lines per second of a run: this times the fastest rate seen so far
ID_CHARS = 22         # a session id: 22 base64url characters (auth/session/sessions.cpp)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt_key(config_path):
    """(kid, secret bytes) of [keys] in an svc.conf."""
    conf = configparser.ConfigParser(interpolation=None, strict=False)
    conf.read(config_path)
    secret = conf["keys"]["jwt_secret"].strip()
    return conf["keys"]["jwt_kid"].strip(), base64.urlsafe_b64decode(secret + "=" * (-len(secret) % 4))


def insert_sessions(sql, tag, batch, count, users, site_id, now):
    """`count` open sessions (generation 1, amr "pwd") of the users (first id, count) in turn, ids
    session_id(tag, batch, 1..count); first deletes every session whose id starts with `tag`."""
    head = f"{tag}{batch:04d}"
    first, n = users
    sql(f"""
DELETE FROM svc_sessions WHERE id LIKE '{tag}%';
INSERT INTO svc_sessions (id, site_id, auth_table, user_id, generation, created_at, last_seen_at, rotated_at,
                          expires_at, auth_time, amr, ip, user_agent)
  SELECT CONCAT('{head}', LPAD(seq, {ID_CHARS - len(head)}, '0')), {site_id}, 'svc_users', {first} + (seq - 1) % {n},
         1, {now}, {now}, {now}, {now + REFRESH_TTL}, {now}, 'pwd', '127.0.0.1', 'bench'
  FROM seq_1_to_{count};
""")


def session_id(tag, batch, n):
    """The id insert_sessions gave session n of a batch."""
    head = f"{tag}{batch:04d}"
    return head + str(n).zfill(ID_CHARS - len(head))


class FreshPool:
    """Batches of request lines that are good once, for one arm (a rotating
    refresh token, an authorization code: bench/pools.py). A subclass
    gives new_batch(count): the bodies of `count` fresh requests, each
    consumed by its use, and `headers` (arm.lua's "name: value|..." part of
    every line). Each run gets a batch sized from the fastest rate seen."""

    headers = ""
    start_rate = START_RATE

    def __init__(self, out_dir, tag):
        assert tag.isalpha() and 2 <= len(tag) <= 6, tag
        self.out_dir, self.tag = Path(out_dir), tag
        self.batch = 0
        self.fastest = 0.0

    def lines_for(self, seconds, conns):
        """How many lines a run of `seconds` at `conns` connections may use: HEADROOM times the fastest
        rate seen (start_rate before any), plus what the connections hold in flight."""
        return int(math.ceil(max(self.fastest * HEADROOM, self.start_rate) * float(seconds))) + 4 * conns

    def file_for(self, seconds, conns):
        """A request file (arm.lua's format) of a new batch sized for the run; its path."""
        path = self.out_dir / f"fresh-{self.tag}.txt"
        path.write_text("".join(self.headers + "\t" + body + "\n"
                                for body in self.new_batch(self.lines_for(seconds, conns))))
        return str(path)

    def observe(self, result):
        """A run's result: the next batch is sized from the fastest rate so far (a run that used up its
        batch, whose rate is then too low: twice as large)."""
        rate = result.get("rps") or 0.0
        if result.get("exhausted"):
            rate = 2 * max(self.fastest, self.start_rate / HEADROOM, rate)
        self.fastest = max(self.fastest, rate)

    def new_batch(self, count):
        raise NotImplementedError

    def settle(self, most=1000, bound=60.0):
        """Waits (at most `bound` seconds) until InnoDB has purged what the
        batch's DELETE of the previous one left (history list length at most
        `most`), so that purging tens of thousands of rows is not counted as
        the measured route's database CPU. False when the bound passed. Needs
        self.sql (a subclass sets it)."""
        deadline = time.monotonic() + bound
        while True:
            status = self.sql("SHOW ENGINE INNODB STATUS;")
            found = re.search(r"History list length (\d+)", status.replace("\\n", "\n"))
            if not found or int(found.group(1)) <= most:
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)


class RefreshPool(FreshPool):
    """Batches of fresh sessions and their request lines for one arm.

    sql: a callable running SQL text on the stack's database (Stack.sql);
    tag: 2 to 6 letters of this pool's session ids (each pool its own).
    The sessions go round the data set's bench users (token_version 0)."""

    first_user, user_count = USER_ID_BASE + 1, USERS

    def __init__(self, config_path, sql, out_dir, tag):
        super().__init__(out_dir, tag)
        self.kid, self.secret = jwt_key(config_path)
        self.sql = sql
        self.header = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": self.kid},
                                        separators=(",", ":")).encode())

    def claims(self, sid, user_id, now):
        """The claims svc's sign_pair writes into a refresh token of session `sid`, generation 1."""
        return {"sub": str(user_id), "typ": "refresh", "aud": "svc-refresh", "tbl": "svc_users", "ver": 0,
                "iat": now, "exp": now + REFRESH_TTL, "jti": b64url(os.urandom(16)), "auth_time": now,
                "amr": ["pwd"], "sid": sid, "gen": 1, "email_verified": False}  # bench users are unverified

    def insert(self, count, now):
        insert_sessions(self.sql, self.tag, self.batch, count, (self.first_user, self.user_count), 0, now)

    def new_batch(self, count):
        """`count` fresh sessions (the previous batch deleted); their request bodies as JSON texts, in order."""
        self.batch += 1
        now = int(time.time())
        self.insert(count, now)
        bodies = []
        for n in range(1, count + 1):
            claims = self.claims(session_id(self.tag, self.batch, n), self.first_user + (n - 1) % self.user_count, now)
            signing_input = self.header + "." + b64url(json.dumps(claims, separators=(",", ":")).encode())
            token = signing_input + "." + b64url(hmac.new(self.secret, signing_input.encode(), hashlib.sha256).digest())
            bodies.append(json.dumps({"payload": {"access_token": ACCESS_PLACEHOLDER, "refresh_token": token}}))
        return bodies


# --- the OpenID Connect code exchange -----------------------------------------------

CLIENT_ID = "bench-oidc-client"
CLIENT_SECRET = "bench-oidc-secret-not-a-secret"  # the bench stack's only
REDIRECT_URI = "https://rp.bench.example/callback"
SCOPE = "openid email profile"
CODE_SECONDS = 300
SITE = 1


def ensure_client(sql):
    """The bench's confidential client of site 1 (made once per stack)."""
    secret_hash = hashlib.sha256(CLIENT_SECRET.encode()).hexdigest()
    sql(f"""
INSERT IGNORE INTO svc_oauth_clients (client_id, site_id, name, secret_hash, redirect_uris, post_logout_uris,
                                      is_public, first_party, created_at)
  VALUES ('{CLIENT_ID}', {SITE}, 'Bench RP', '{secret_hash}', '{REDIRECT_URI}', '', 0, 1, {int(time.time())});
""")


class CodePool(FreshPool):
    """Batches of fresh authorization codes, one request line each."""

    start_rate = 5_000  # req/s assumed before a run (above an RS256 signature per request on a few cores)

    def __init__(self, sql, out_dir, tag):
        super().__init__(out_dir, tag)
        self.sql = sql
        basic = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        self.headers = f"Content-Type: application/x-www-form-urlencoded|Authorization: Basic {basic}"
        ensure_client(sql)

    def new_batch(self, count):
        """`count` fresh codes (the previous batch's sessions and codes deleted); their form bodies."""
        self.batch += 1
        now = int(time.time())
        insert_sessions(self.sql, self.tag, self.batch, count, (USER_ID_BASE + 1, USERS), SITE, now)
        codes = [base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode() for _ in range(count)]
        rows = [f"('{hashlib.sha256(c.encode()).hexdigest()}', {SITE}, '{CLIENT_ID}', '{REDIRECT_URI}', '{SCOPE}', "
                f"'n{n}', '{session_id(self.tag, self.batch, n)}', {now}, {now + CODE_SECONDS})"
                for n, c in enumerate(codes, 1)]
        head = ("INSERT INTO svc_oauth_codes (code_hash, site_id, client_id, redirect_uri, scope, nonce, session_id, "
                "created_at, expires_at) VALUES\n")
        inserts = "".join(head + ",\n".join(rows[i:i + 5000]) + ";\n" for i in range(0, len(rows), 5000))
        self.sql(f"DELETE FROM svc_oauth_codes WHERE client_id = '{CLIENT_ID}';\n" + inserts)
        redirect = urllib.parse.quote(REDIRECT_URI, safe="")
        return [f"grant_type=authorization_code&code={c}&redirect_uri={redirect}" for c in codes]

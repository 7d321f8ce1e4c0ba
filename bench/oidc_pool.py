"""Authorization codes for the OpenID Connect token-exchange arm (issue 39,
docs/oidc.md): POST {issuer}/token with grant_type=authorization_code,
each code presented once (a code is single-use: its second use is
invalid_grant and revokes what the first issued).

The authorize flow (browser cookie, hosted sign-in with an Argon2id verify,
redirect) costs far more than the exchange, so codes are minted straight
into the database as svc's issue_code (src/oidc/flow.cpp) stores them:
a batch of `count` svc sessions of bench users (site 1, generation 1, amr
"pwd", as the sign-in opens for the client), and one svc_oauth_codes row a
session, the SHA-256 hex of a random code, bound to the bench client and
its redirect URI, scope "openid email profile", a nonce, no PKCE challenge.
Their expiry is 300 s instead of 60 s so that minting a large batch does
not eat into a run's codes. The bench client is a confidential one of site
1 (client_secret_basic), inserted here with a known secret. Each batch
deletes the previous one. Stdlib only.
"""

import base64
import hashlib
import os
import time
import urllib.parse

from dataset import USER_ID_BASE, USERS
from refresh_pool import FreshPool, insert_sessions, session_id

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

    def __init__(self, sql, out_dir, tag, users=(USER_ID_BASE + 1, USERS)):
        super().__init__(out_dir, tag)
        self.sql, self.users = sql, users
        basic = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        self.headers = f"Content-Type: application/x-www-form-urlencoded|Authorization: Basic {basic}"
        ensure_client(sql)

    def new_batch(self, count):
        """`count` fresh codes (the previous batch's sessions and codes deleted); their form bodies."""
        self.batch += 1
        now = int(time.time())
        insert_sessions(self.sql, self.tag, self.batch, count, self.users, SITE, now)
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

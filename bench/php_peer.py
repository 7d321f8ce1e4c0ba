#!/usr/bin/python3
"""The PHP-FPM peer of the mixed-traffic arm (bench/php-peer/, bench/mix.py): its configuration, the check that it
answers as the spec says, and its own request files. Part of bench/bench.py; stdlib only.

bench/php_peer.py config STACK_DIR writes STACK_DIR/php-peer.ini, prints its path

The peer reads the bench's database as svc's own account and opens svc's encrypted user ids with the same key (a
backend holding the key, as docs/api.md allows), so the login, user-email, getFolderLimits, notification and
request-pass request files are svc's. It rotates refresh tokens as svc does (a row of php_peer_sessions, one
conditional UPDATE that checks the user, an ES256 access token and an HS256 refresh token with secrets of its own),
so its refresh-token requests come from PeerRefreshPool: fresh sessions and tokens minted with its secret, each sent
once.
"""

import base64
import configparser
import json
import secrets
import subprocess
import sys
from pathlib import Path

from dataset import parse_line, refresh_body
from load import Client
from pools import ID_CHARS, REFRESH_TTL, FreshPool, RefreshPool, b64url
from stack import log

SESSIONS_TABLE = """
CREATE TABLE IF NOT EXISTS php_peer_sessions (id VARCHAR(22) PRIMARY KEY, auth_table VARCHAR(64) NOT NULL,
  user_id BIGINT UNSIGNED NOT NULL, generation INT UNSIGNED NOT NULL, revoked TINYINT NOT NULL DEFAULT 0,
  created_at DATETIME NOT NULL, rotated_at DATETIME NOT NULL, expires_at DATETIME NOT NULL) ENGINE=InnoDB;
"""


def write_config(stack_dir):
    """The peer's INI (PEER_CONFIG of its pool): svc's database account and id
    key, and fresh HS256 secrets for its access/refresh and reset tokens."""
    conf = configparser.ConfigParser(interpolation=None, strict=False)
    conf.read(Path(stack_dir) / "svc.conf")
    db, keys = conf["database"], conf["keys"]
    es256 = Path(stack_dir) / "php-peer-es256.pem"
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(es256)],
                   check=True, capture_output=True)
    lines = [
        "; The bench's PHP peer (bench/php_peer.py config); not for production.",
        f"db_socket = {db['socket']}", f"db_name = {db['name']}", f"db_user = {db['user']}",
        f"db_password = {db['password']}",
        f"id_key = {keys['id_key']}",
        f"jwt_secret = {secrets.token_urlsafe(32)}",
        f"reset_secret = {secrets.token_urlsafe(32)}",
        f"es256_key = {es256}",
    ]
    path = Path(stack_dir) / "php-peer.ini"
    path.write_text("\n".join(lines) + "\n")
    path.chmod(0o600)
    return path


class PeerRefreshPool(RefreshPool):
    """RefreshPool's batches for the peer: sessions in php_peer_sessions and
    refresh tokens with the peer's secret and claims (index.php refresh_token)."""

    def __init__(self, stack, out_dir, tag):
        FreshPool.__init__(self, out_dir, tag)
        conf = configparser.ConfigParser(interpolation=None, strict=False)
        conf.read_string("[peer]\n" + (stack.dir / "php-peer.ini").read_text())
        secret = conf["peer"]["jwt_secret"]
        self.secret = base64.urlsafe_b64decode(secret + "=" * (-len(secret) % 4))
        self.sql, self.header = stack.sql, b64url(b'{"alg":"HS256","typ":"JWT"}')

    def claims(self, sid, user_id, now):
        return {"sub": str(user_id), "tbl": "svc_users", "app": 1, "ver": 0, "iat": now, "sid": sid,
                "typ": "refresh", "exp": now + REFRESH_TTL, "gen": 1, "jti": secrets.token_hex(16)}

    def insert(self, count, now):
        head = f"{self.tag}{self.batch:04d}"
        self.sql(f"""
DELETE FROM php_peer_sessions WHERE id LIKE '{self.tag}%';
INSERT INTO php_peer_sessions (id, auth_table, user_id, generation, created_at, rotated_at, expires_at)
  SELECT CONCAT('{head}', LPAD(seq, {ID_CHARS - len(head)}, '0')), 'svc_users',
         {self.first_user} + (seq - 1) % {self.user_count}, 1, NOW(), NOW(), NOW() + INTERVAL 30 DAY
  FROM seq_1_to_{count};
""")


def shape_problems(route, status, reply):
    """What is wrong with a reply of the peer (status and field names), as text; [] when it is right."""
    if status != 200 or not isinstance(reply, dict) or reply.get("status") != "Success":
        return [f"HTTP {status}: {str(reply)[:300]}"]
    token = reply.get("token") if isinstance(reply.get("token"), dict) else {}
    need = {
        "login": [("token.access_token", token.get("access_token")), ("token.refresh_token", token.get("refresh_token"))]
        + [(f"token.user.{k}", (token.get("user") or {}).get(k)) for k in ("id", "email", "firstName", "lastName", "role")],
        "refresh-token": [("token.access_token", token.get("access_token")),
                          ("token.refresh_token", token.get("refresh_token"))],
        "user-email": [("email", reply.get("email")), ("role", reply.get("role"))],
        "getFolderLimits": [("data", reply.get("data") if isinstance(reply.get("data"), list) and all(
            isinstance(d, dict) and isinstance(d.get("linked"), int) for d in reply["data"]) else None)],
        "notification": [],
        "request-pass": [("message", reply.get("message") if str(reply.get("message", "")).startswith(
            "An e-mail with reset instructions has been sent to ") else None)],
    }[route]
    return [f"{name} missing or malformed" for name, value in need if value in (None, "")]


PATHS = {"login": "/auth/login", "refresh-token": "/auth/refresh-token", "user-email": "/auth/user-email",
         "getFolderLimits": "/auth/getFolderLimits", "notification": "/message/notification",
         "request-pass": "/auth/request-pass"}


def prepare(stack, port, files):
    """Creates the peer's session table, checks each of the six routes with
    one request (status and field names) and that a refresh token works
    once: its reuse gets 401. Raises RuntimeError naming the route when the
    peer answers wrongly."""
    stack.sql(SESSIONS_TABLE)
    client = Client(f"http://127.0.0.1:{port}")
    status, login = client.post(PATHS["login"], json.loads(parse_line(Path(files["login"]).read_text()
                                                                         .splitlines()[0])[1]))
    problems = {"login": shape_problems("login", status, login)}
    if not problems["login"]:
        body = refresh_body(login["token"])
        problems["refresh-token"] = shape_problems("refresh-token", *client.post(PATHS["refresh-token"], body))
        reuse, _ = client.post(PATHS["refresh-token"], body)
        problems["refresh-token"] += [] if reuse == 401 else [f"a reused refresh token got {reuse}, not 401"]
        for route, route_path in PATHS.items():
            if route not in problems:
                headers, body = parse_line(next(l for l in Path(files[route]).read_text().splitlines() if l.strip()))
                problems[route] = shape_problems(route, *client.post(route_path, json.loads(body), headers=headers))
    problems = {r: p for r, p in problems.items() if p}
    if problems:
        raise RuntimeError("the PHP-FPM peer answered wrongly: " +
                           "; ".join(f"{r}: {', '.join(p)}" for r, p in problems.items()) +
                           " (its errors: php-peer-errors.log and php-fpm.log in bench/out/last-run/)")
    log("PHP-FPM peer: the six routes answer as the spec says; its refresh tokens rotate")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "config":
        print(write_config(sys.argv[2]))
    else:
        sys.exit(__doc__)

#!/usr/bin/python3
"""The PHP-FPM peer of the mixed-traffic arm (bench/php-peer/, bench/mix.py):
its configuration, the check that it answers as the spec says, and its own
request files. Part of bench/bench.py; stdlib only.

    bench/php_peer.py config STACK_DIR   writes STACK_DIR/php-peer.ini, prints its path

The peer reads the bench's database as svc's own account and opens svc's
encrypted user ids with the same key (a backend holding the key, as
docs/api.md allows), so the login, user-email, getFolderLimits, notification
and request-pass request files are svc's. Its JWTs are HS256 with a shared
secret of its own, so its refresh-token file holds tokens its own login
issued.
"""

import configparser
import json
import secrets
import sys
from pathlib import Path

from dataset import parse_line, refresh_body, request_line
from load import Client
from stack import log


def write_config(stack_dir):
    """The peer's INI (PEER_CONFIG of its pool): svc's database account and id
    key, and fresh HS256 secrets for its access/refresh and reset tokens."""
    conf = configparser.ConfigParser(interpolation=None, strict=False)
    conf.read(Path(stack_dir) / "svc.conf")
    db, keys = conf["database"], conf["keys"]
    lines = [
        "; The bench's PHP peer (bench/php_peer.py config); not for production.",
        f"db_socket = {db['socket']}", f"db_name = {db['name']}", f"db_user = {db['user']}",
        f"db_password = {db['password']}",
        f"id_key = {keys['id_key']}",
        f"jwt_secret = {secrets.token_urlsafe(32)}",
        f"reset_secret = {secrets.token_urlsafe(32)}",
    ]
    path = Path(stack_dir) / "php-peer.ini"
    path.write_text("\n".join(lines) + "\n")
    path.chmod(0o600)
    return path


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


def prepare(port, files, out, logins=16):
    """Checks each of the six routes with one request (status and field names)
    and writes the peer's refresh-token file from `logins` of its own logins.
    Returns the peer's request files ({route: path}); raises RuntimeError
    naming the route when the peer answers wrongly."""
    client = Client(f"http://127.0.0.1:{port}")
    logins = [client.post(PATHS["login"], json.loads(parse_line(line)[1]))
              for line in Path(files["login"]).read_text().splitlines()[:logins]]
    problems = {"login": shape_problems("login", *logins[0])}
    path = Path(out) / "php-refresh-token.txt"
    path.write_text("".join(request_line(refresh_body(reply["token"])) + "\n"
                            for status, reply in logins if status == 200))
    peer_files = dict(files, **{"refresh-token": str(path)})
    for route, route_path in PATHS.items():
        if route != "login" and not problems["login"]:
            headers, body = parse_line(next(l for l in Path(peer_files[route]).read_text().splitlines() if l.strip()))
            problems[route] = shape_problems(route, *client.post(route_path, json.loads(body), headers=headers))
    problems = {r: p for r, p in problems.items() if p}
    if problems:
        raise RuntimeError("the PHP-FPM peer answered wrongly: " +
                           "; ".join(f"{r}: {', '.join(p)}" for r, p in problems.items()) +
                           " (its errors: php-peer-errors.log and php-fpm.log in bench/out/last-run/)")
    log(f"PHP-FPM peer: the six routes answer as the spec says; {sum(s == 200 for s, _ in logins)} refresh tokens "
        "of its own")
    return peer_files


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "config":
        print(write_config(sys.argv[2]))
    else:
        sys.exit(__doc__)

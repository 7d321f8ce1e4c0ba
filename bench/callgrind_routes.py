#!/usr/bin/python3
"""Instructions per request of svc-fcgi, route by route, with callgrind: a
figure that does not move with the machine's load, for A/B decisions on a
shared box (wall-clock req/s there is noise). Stdlib only; not part of
`make bench`.

    bench/callgrind_routes.py --bin build-test [--requests 300] [--routes refresh-token,getFolderLimits]

Starts its own stack (scripts/stack.sh, one worker per pool, access log
off, sender loop off, [server] max_requests = --requests) in a temporary
directory, loads a small data set, and replaces svc-fcgi by `valgrind
--tool=callgrind svc-fcgi` (the workers are forked under it), counters
zeroed when a worker enters its request loop (FCGX_InitRequest), so its
start-up is not counted. Per route it sends --requests requests one after the other
through nginx; the worker that served them recycles right after the last
one and callgrind writes its file at exit: instructions / requests, the
first (cold) requests included. The time-bounded caches (site, user rows,
signing keys, templates: 1-5 s) are hit less often under valgrind than at
full speed, so the figures are an upper bound; compare them only with each
other. Prints one JSON line per route and leaves the files in --out
(callgrind_annotate reads them). Always stops the stack.
"""

import argparse
import glob
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PASSWORD = "Bench@2026!"


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


class Stack:
    def __init__(self, directory, port):
        self.dir, self.port = Path(directory), port

    def sql(self, query):
        return sh(["mariadb", "--no-defaults", f"--socket={self.dir / 'mysql.sock'}", "-uroot", "-N", "-B", "svc"],
                  input=query)

    def post(self, path, body, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json", **(headers or {})})
        reply = conn.getresponse()
        data = reply.read()
        conn.close()
        return reply.status, data


def data_set(stack, env):
    """One user with tokens, folder links, a notification template; the
    request (path, body, headers) of every route."""
    site = {"site-id": "1", "x-site-key": env["SITE_KEY"]}
    status, data = stack.post("/auth/sign-up", {"email": "prof@example.com", "password": PASSWORD,
                                                "firstname": "Pro", "lastname": "File"})
    if status != 200:
        raise SystemExit(f"sign-up failed: {status} {data[:200]!r}")
    token = json.loads(data)["token"]
    user_id = int(stack.sql("SELECT id FROM svc_users WHERE user_email = 'prof@example.com';").strip())
    stack.sql(f"""
INSERT INTO svc_folders (id, site_id, name) SELECT 100000 + seq, 1, CONCAT('Folder ', seq) FROM seq_1_to_5;
INSERT INTO svc_related (master_table, master_id, linked_table, linked)
  SELECT 'svc_users', {user_id}, 'svc_folders', 100000 + seq FROM seq_1_to_5;
INSERT INTO svc_notifications (site_id, event, enabled, subject, content)
  VALUES (1, 'prof', 1, 'Order [order] for [name]', '<p>Hello [name], order <b>[order]</b> shipped.</p>');
""")
    return {
        "refresh-token": ("/auth/refresh-token", {"payload": {"access_token": token["access_token"],
                                                              "refresh_token": token["refresh_token"]}}, {}),
        "getFolderLimits": ("/auth/getFolderLimits", {"appID": 1, "table": "svc_folders", "userId": user_id}, site),
        "notification": ("/message/notification", {"event": "prof", "email": "rcpt@example.com",
                                                   "data": {"name": "Ada", "order": "4242"}}, site),
        "login": ("/auth/login", {"email": "prof@example.com", "password": PASSWORD}, {}),
        "user-email": ("/auth/user-email", {"userId": sh([env["SVC_BIN_DIR"] + "/svc-admin", "--config",
                                                          env["SVC_CONFIG"], "mint-user-id", "--user",
                                                          str(user_id), "--ttl", "2h"]).strip()}, {}),
    }


def instructions(files):
    total = 0
    for f in files:
        for line in open(f, errors="replace"):
            m = re.match(r"^(?:summary|totals):\s+(\d+)", line)
            if m:
                total += int(m.group(1))
                break
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=str(REPO / "build-test"))
    p.add_argument("--requests", type=int, default=300)
    p.add_argument("--routes", default="refresh-token,getFolderLimits,notification,user-email")
    p.add_argument("--out", default=str(REPO / "bench" / "out" / "callgrind"))
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for f in out.glob("cg.*"):
        f.unlink()
    directory = tempfile.mkdtemp(prefix="svc-callgrind.")
    env = dict(os.environ, SVC_STACK_DIR=directory, SVC_HTTP_PORT="0", SVC_BIN_DIR=os.path.abspath(args.bin),
               SVC_WORKERS="1", SVC_HASHING_WORKERS="1", SVC_OUTBOUND_WORKERS="1", SVC_ACCESS_LOG="off",
               SVC_SENDER_LOOP="0", SVC_MAX_REQUESTS=str(args.requests))
    stack_sh = str(REPO / "scripts" / "stack.sh")
    try:
        sh([stack_sh, "up"], env=env)
        senv = dict(line.split("=", 1) for line in Path(directory, "env").read_text().splitlines() if "=" in line)
        stack = Stack(directory, int(senv["SVC_HTTP_PORT"]))
        requests = data_set(stack, senv)
        # svc-fcgi under callgrind instead of the plain one
        pidfile = Path(directory, "pids", "svc-fcgi.pid")
        old = int(pidfile.read_text())
        os.kill(old, 15)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and os.path.exists(f"/proc/{old}"):
            time.sleep(0.1)
        for sock in glob.glob(os.path.join(directory, "svc-fcgi*.sock")):
            os.unlink(sock)
        log = open(Path(directory, "svc-fcgi-callgrind.log"), "w")
        vg = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg.%p",
                               "--zero-before=FCGX_InitRequest",
                               os.path.join(args.bin, "svc-fcgi"), "--config", senv["SVC_CONFIG"]],
                              stdout=log, stderr=subprocess.STDOUT)
        pidfile.write_text(str(vg.pid))
        deadline = time.monotonic() + 120
        while len(glob.glob(os.path.join(directory, "svc-fcgi*.sock"))) < 3:
            if time.monotonic() > deadline:
                raise SystemExit("svc-fcgi under valgrind did not start")
            time.sleep(0.2)
        seen = set(glob.glob(f"{out}/cg.*"))
        for name in args.routes.split(","):
            path, body, headers = requests[name]
            bad = 0
            for _ in range(args.requests):
                status, _ = stack.post(path, body, headers)
                bad += status != 200
            # the worker recycles after exactly --requests and callgrind writes its file at exit
            deadline = time.monotonic() + 60
            while True:
                dumps = sorted(set(glob.glob(f"{out}/cg.*")) - seen)
                if dumps or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            # a file is complete once its process is gone
            for f in dumps:
                pid = f.rsplit(".", 1)[1]
                while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
                    time.sleep(0.05)
            seen |= set(dumps)
            total = instructions(dumps)
            for f in dumps:
                os.rename(f, f"{out}/{name}.{os.path.basename(f)}")
            print(json.dumps({"route": name, "requests": args.requests, "non_200": bad, "instructions": total,
                              "instructions_per_request": round(total / args.requests)}), flush=True)
    finally:
        subprocess.run([stack_sh, "down"], env=env, capture_output=True)
        subprocess.run(["rm", "-rf", directory])


if __name__ == "__main__":
    sys.exit(main())

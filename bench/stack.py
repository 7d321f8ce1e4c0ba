"""The running stack of a benchmark (scripts/stack.sh state directory), its processes' CPU and memory from /proc, and
the svc-fcgi log's view of which pool served what. Part of bench/bench.py; stdlib only.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLK_TCK = os.sysconf("SC_CLK_TCK")
HASHING_PATHS = ("/auth/login", "/auth/sign-up", "/auth/reset-pass", "/auth/mfa/disable", "/auth/password/change",
                 "/auth/email/change", "/auth/account/delete", "/auth/oidc/sign-in", "/auth/oidc/register")
# The routes nginx sends to the outbound pool (kOutbound; tests/unit/app/outbound_routes_test.cpp).
OUTBOUND_PATHS = ("/message/sendPush", "/message/notification", "/auth/user-sms-code")


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def run(cmd, check=True, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise RuntimeError(f"{cmd[0]} exited {r.returncode}: {r.stderr.strip()[-2000:]}")
    return r


class Stack:
    """A running stack (scripts/stack.sh state directory) and its processes.
    bench.py's stack also has the bench server blocks' ports, the helpers
    and the hello program (scripts/bench.sh)."""

    def __init__(self, directory, bin_dir, helpers=None, bench_port=None, floor_pids_file=None):
        self.dir = Path(directory)
        self.env = dict(l.split("=", 1) for l in (self.dir / "env").read_text().splitlines() if "=" in l)
        self.http_port = int(self.env["SVC_HTTP_PORT"])
        self.smtp_port = int(self.env["SVC_SMTP_PORT"])
        self.site_key = self.env.get("SITE_KEY", "")  # the demo site 1's x-site-key
        self.bench_port = bench_port
        self.bin = Path(bin_dir)
        self.helpers = Path(helpers) if helpers else None
        self.config = self.dir / "svc.conf"
        # The floor programs' masters (hello, hello_db): their workers' CPU counts as the floors'.
        self.floor_pids = [int(p) for p in Path(floor_pids_file).read_text().split()] if floor_pids_file else []
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

    def statements(self):
        """The server's statement count so far (Questions: client statements, prepared executions included)."""
        return int(self.sql("SHOW GLOBAL STATUS LIKE 'Questions';").split()[1])

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


def group_ticks(groups):
    """{group: cpu_ticks of its roots} from one look at /proc; groups: {name: [root pids]}."""
    table = proc_table()
    return {name: cpu_ticks(roots, table) for name, roots in groups.items()}


def cpu_ticks(roots, table=None):
    """CPU ticks of each root process, its reaped children (cutime) and its
    live children: a worker that was recycled during an arm is still counted."""
    table = table or proc_table()
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

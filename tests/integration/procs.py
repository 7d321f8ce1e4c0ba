"""Process helpers shared by the tests of the prefork master: live worker
pids, their sockets and pending signals from /proc, and polling until a
condition holds (the way a test waits for an event, with a deadline)."""

import os
import time


def _state(pid):
    """The /proc state letter of pid, or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


def pid_alive(pid):
    state = _state(pid)
    return state is not None and state != "Z"


def worker_pids(master):
    """Children of master that are alive (an exited, unreaped child is not a worker)."""
    pids = set()
    try:
        tasks = os.listdir("/proc/%d/task" % master)
    except (FileNotFoundError, ProcessLookupError):
        return set()
    for task in tasks:
        try:
            with open("/proc/%d/task/%s/children" % (master, task)) as f:
                pids.update(int(p) for p in f.read().split())
        except (FileNotFoundError, ProcessLookupError):
            pass  # exited between listing and reading
    return {pid for pid in pids if pid_alive(pid)}


def wait_until(predicate, timeout, step=0.05):
    """Polls predicate until it returns something true or timeout seconds pass."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def socket_inodes(pid):
    """The inodes of the sockets pid holds open (its /proc fd links
    "socket:[N]"); an empty set when it is gone. A worker that accepts a
    connection holds one more."""
    inodes = set()
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except (FileNotFoundError, ProcessLookupError):
        return inodes
    for fd in fds:
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue  # closed between listing and reading
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    return inodes


def signal_pending(pid, signum):
    """True when signal `signum` waits (blocked) for delivery to pid: the
    process-wide (ShdPnd) or its main thread's (SigPnd) pending set."""
    try:
        with open("/proc/%d/status" % pid) as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
    except (FileNotFoundError, ProcessLookupError):
        return False
    bit = 1 << (signum - 1)
    return any(int(fields.get(name, "0").strip(), 16) & bit for name in ("ShdPnd", "SigPnd"))

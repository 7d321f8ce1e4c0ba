"""Process helpers shared by the tests of the prefork master: live worker
pids from /proc, and polling until a condition holds."""

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

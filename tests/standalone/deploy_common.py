"""What the deploy-file tests share (test_deploy_nginx.py, test_deploy_systemd.py,
test_deploy_docs.py): the tree's paths, the tools on PATH, reading files and
running commands, a free loopback port and an nginx of a rendered
configuration for the length of a `with` (also test_nginx_hardening.py).
Stdlib only.
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
NGINX_DIR = SOURCE_DIR / "nginx"
SYSTEMD_DIR = SOURCE_DIR / "systemd"
SEARCH_PATH = os.environ.get("PATH", "") + ":/usr/sbin:/sbin:/usr/bin:/bin"
NGINX = shutil.which("nginx", path=SEARCH_PATH)
OPENSSL = shutil.which("openssl", path=SEARCH_PATH)
SYSTEMD_ANALYZE = shutil.which("systemd-analyze", path=SEARCH_PATH)


def require(tool, name):
    """A tool scripts/install-deps.sh installs: its absence fails the test
    (runner.py), it is never a reason to skip."""
    if not tool:
        raise AssertionError("%s not found on PATH: scripts/install-deps.sh installs it" % name)
    return tool


def read(path):
    return Path(path).read_text()


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, **kw)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_nginx(conf, prefix, port):
    """Starts nginx in the foreground on the rendered config; always stops it."""
    errlog = Path(prefix) / "nginx-error.log"
    proc = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(prefix), "-e", str(errlog),
                             "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"nginx exited {proc.returncode}: {proc.stderr.read()}"
                                     f"{errlog.read_text() if errlog.exists() else ''}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError("nginx did not start listening")
                time.sleep(0.05)
        yield
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGQUIT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        proc.stderr.close()

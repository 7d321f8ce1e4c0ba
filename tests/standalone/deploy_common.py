"""What the deploy-file tests share (test_deploy_nginx.py, test_deploy_systemd.py,
test_deploy_docs.py): the tree's paths, the tools on PATH, reading files and
running commands. Stdlib only.
"""

import os
import shutil
import subprocess
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

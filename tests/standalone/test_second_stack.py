#!/usr/bin/env python3
"""A second local stack, as README.md "A second local stack" and
"svc-admin against the local stack" tell a newcomer (issue 48): the lines
of those sections run as written, with the state directory and the port
replaced by a temporary directory and a free port, and the binaries taken
from SVC_BIN_DIR.

The start prints the address and the command that stops *this* stack (it
said "make stop", which stops .run/) and no note about `--allowed-hosts`
(the seed passed an option that no longer does anything, and svc-admin
said so on every fresh start). That printed command, run as printed, stops
every process of the stack. svc-admin with the stack's configuration reads
its database (site show of the demo site) and its doctor passes (exit 0).

Starts MariaDB, nginx and the workers in the temporary directory (about
half a minute); stdlib only. Env: SVC_BIN_DIR, SVC_SOURCE_DIR.
"""

import os
import re
import shutil
import socket
import subprocess
import tempfile
import unittest
from pathlib import Path

import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BIN_DIR = Path(os.environ.get("SVC_BIN_DIR") or SOURCE_DIR / "build")
README_DIR, README_PORT = "/tmp/svc-two", "8081"
PROCESSES = ("mariadb", "svc-fcgi", "nginx", "smtp-sink", "sms-sink", "push-sink", "svc-sender")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def readme_block(heading):
    """The lines of the first ```sh block under `### heading` in README.md."""
    text = (SOURCE_DIR / "README.md").read_text(encoding="utf-8")
    section = text.split("### " + heading + "\n", 1)[1].split("\n#", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def alive(stack_dir, name):
    pid_file = Path(stack_dir, "pids", name + ".pid")
    if not pid_file.exists():
        return False
    stat = Path("/proc", pid_file.read_text().strip(), "stat")
    return stat.exists() and stat.read_text().split(")")[-1].split()[0] != "Z"


class SecondStackTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="second-stack-")  # not under README_DIR: bash() rewrites that
        self.port = str(free_port())
        self.env = dict(os.environ, SVC_BIN_DIR=str(BIN_DIR))
        for name in [k for k in self.env if k.startswith("SVC_") and k not in ("SVC_BIN_DIR", "SVC_SOURCE_DIR")]:
            del self.env[name]  # nothing but the README's own variables
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.addCleanup(subprocess.run, [str(SOURCE_DIR / "scripts" / "stack.sh"), "down"], capture_output=True,
                        env=dict(self.env, SVC_STACK_DIR=self.dir), timeout=120)

    def bash(self, line, check=True):
        """A README line in the repository, with this test's directory, port and binaries."""
        line = line.replace(README_DIR, self.dir).replace(README_PORT, self.port)
        line = re.sub(r"(^|\s)build/", r"\g<1>%s/" % BIN_DIR, line)
        line = line.replace(".run/", self.dir + "/")
        result = subprocess.run(["bash", "-c", line], cwd=SOURCE_DIR, env=self.env, capture_output=True, text=True,
                                timeout=300)
        if check:
            self.assertEqual(result.returncode, 0, "%s\n%s%s" % (line, result.stdout, result.stderr))
        return result

    def test_a_second_stack_runs_and_stops_as_the_readme_says(self):
        lines = readme_block("A second local stack")
        self.assertTrue(lines[0].startswith("SVC_STACK_DIR=%s SVC_HTTP_PORT=%s scripts/stack.sh up"
                                            % (README_DIR, README_PORT)), lines)
        self.assertTrue(lines[-1].endswith("scripts/stack.sh down"), lines)
        up = self.bash(lines[0])
        self.assertIn("svc is running at http://127.0.0.1:%s " % self.port, up.stdout)
        self.assertNotIn("allowed-hosts", up.stdout + up.stderr)
        stop = re.search(r"stop with: (.*)\)$", up.stdout, re.M).group(1)
        self.assertNotEqual(stop, "make stop")
        self.assertEqual([p for p in PROCESSES if not alive(self.dir, p)], [])
        for line in lines[1:-1]:
            out = self.bash(line).stdout
            if "site show" in line:
                self.assertRegex(out, r"(?m)^name:\s+Demo$")
            if "status" in line:
                self.assertEqual(len(re.findall(r"(?m)running \(pid", out)), len(PROCESSES), out)

        # "svc-admin against the local stack", with this stack's directory for .run/.
        admin_lines = readme_block("svc-admin against the local stack")
        self.assertTrue(all(line.startswith("build/svc-admin --config .run/svc.conf ") for line in admin_lines))
        for line in admin_lines:
            out = self.bash(line.split("#", 1)[0]).stdout  # the doctor's exit 0 is checked by bash()
            if "site show" in line:
                self.assertRegex(out, r"(?m)^name:\s+Demo$")
            if "doctor" in line:
                rows = re.findall(r"(?m)^(\S.*?)\s{2,}(ok|FAIL|skip|warn)\s{2,}", out)
                self.assertEqual([name for name, result in rows if result != "ok"], ["settings"], out)

        # The printed command, as printed, from another directory.
        result = subprocess.run(["bash", "-c", stop], cwd="/", env=self.env, capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual([p for p in PROCESSES if alive(self.dir, p)], [])


if __name__ == "__main__":
    runner.main()

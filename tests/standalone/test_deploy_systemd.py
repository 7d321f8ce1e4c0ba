#!/usr/bin/env python3
"""Checks the systemd deploy files (socket, services, timer, sysusers): the
unit contents always; `systemd-analyze verify`, `calendar` and `security
--offline` when systemd-analyze exists (systemd is not among what
scripts/install-deps.sh installs, so without it those tests are reported
as skipped, never as passed).

Stdlib only. Env: SVC_SOURCE_DIR = repository root (default: two levels up).
"""

import os
import re
import shutil
import tempfile
import time
import unittest
from pathlib import Path

import runner
from deploy_common import NGINX_DIR, SYSTEMD_ANALYZE, SYSTEMD_DIR, read, run

def parse_unit(path):
    """{section: [(key, value), ...]}: systemd allows repeated keys."""
    sections, current = {}, None
    for line in read(path).splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), [])
        else:
            key, _, value = line.partition("=")
            current.append((key.strip(), value.strip()))
    return sections


def values(unit, section, key):
    return [v for k, v in unit.get(section, []) if k == key]


def value(unit, section, key):
    found = values(unit, section, key)
    return found[-1] if found else None


HARDENING = {
    "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes", "NoNewPrivileges": "yes",
    "PrivateDevices": "yes", "ProtectKernelTunables": "yes", "ProtectKernelModules": "yes",
    "ProtectControlGroups": "yes", "RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6",
    "RestrictNamespaces": "yes", "LockPersonality": "yes", "MemoryDenyWriteExecute": "yes",
    "SystemCallArchitectures": "native", "CapabilityBoundingSet": "",
}


class SystemdUnitsTest(unittest.TestCase):
    def setUp(self):
        self.socket = parse_unit(SYSTEMD_DIR / "svc-fcgi.socket")
        self.fcgi = parse_unit(SYSTEMD_DIR / "svc-fcgi.service")
        self.sender = parse_unit(SYSTEMD_DIR / "svc-sender.service")
        self.timer = parse_unit(SYSTEMD_DIR / "svc-sender.timer")

    def test_socket(self):
        # Order matters: svc-fcgi takes fd 3 as the main socket, fd 4 as the
        # hashing pool's, fd 5 as the outbound pool's.
        self.assertEqual(values(self.socket, "Socket", "ListenStream"),
                         ["/run/svc/svc-fcgi.sock", "/run/svc/svc-fcgi-hashing.sock",
                          "/run/svc/svc-fcgi-outbound.sock"])
        self.assertEqual(value(self.socket, "Socket", "SocketMode"), "0660")
        self.assertEqual(value(self.socket, "Socket", "SocketUser"), "svc")
        self.assertEqual(value(self.socket, "Socket", "SocketGroup"), "www-data")
        self.assertIn(value(self.socket, "Socket", "Accept"), (None, "no", "false"))
        # nginx's production upstream points at the same path.
        self.assertIn("unix:/run/svc/svc-fcgi.sock", read(NGINX_DIR / "svc.conf"))
        self.assertIn("unix:/run/svc/svc-fcgi-hashing.sock", read(NGINX_DIR / "svc.conf"))
        self.assertIn("unix:/run/svc/svc-fcgi-outbound.sock", read(NGINX_DIR / "svc.conf"))

    def test_fcgi_service(self):
        s = self.fcgi
        self.assertIn("svc-fcgi.socket", value(s, "Unit", "Requires").split())
        self.assertEqual(value(s, "Service", "ExecStart"), "/usr/local/bin/svc-fcgi --config /etc/svc/svc.conf")
        self.assertEqual(values(s, "Service", "ExecReload"),
                         ["/usr/local/bin/svc-fcgi --config /etc/svc/svc.conf --check",
                          "/bin/kill -HUP $MAINPID"])
        self.assertEqual(value(s, "Service", "KillSignal"), "SIGTERM")
        self.assertEqual(value(s, "Service", "TimeoutStopSec"), "30")
        self.assertEqual(value(s, "Service", "Restart"), "on-failure")
        self.assertEqual(value(s, "Service", "User"), "svc")
        self.assertEqual(value(s, "Service", "Group"), "svc")
        for key, want in HARDENING.items():
            self.assertEqual(value(s, "Service", key), want, key)

    def test_sender_service(self):
        s = self.sender
        self.assertEqual(value(s, "Service", "Type"), "oneshot")
        self.assertEqual(value(s, "Service", "ExecStart"), "/usr/local/bin/svc-sender --config /etc/svc/svc.conf")
        self.assertEqual(value(s, "Service", "User"), "svc")
        for key, want in HARDENING.items():
            self.assertEqual(value(s, "Service", key), want, key)
        # Same hardening block in both services.
        skip = {"Type", "ExecStart", "ExecReload", "KillMode", "KillSignal", "TimeoutStopSec",
                "TimeoutStartSec", "Restart", "RestartSec"}
        self.assertEqual([kv for kv in self.fcgi["Service"] if kv[0] not in skip],
                         [kv for kv in self.sender["Service"] if kv[0] not in skip])

    def test_timer_every_minute(self):
        t = self.timer
        self.assertIn(value(t, "Timer", "Unit"), (None, "svc-sender.service"))
        on_calendar = value(t, "Timer", "OnCalendar")
        if on_calendar is not None:
            self.assertIn(on_calendar, ("minutely", "*-*-* *:*:00"))
        else:
            self.assertIn(value(t, "Timer", "OnUnitActiveSec"), ("60s", "1min", "60"))
            self.assertIsNotNone(value(t, "Timer", "OnBootSec"))
        self.assertEqual(value(t, "Timer", "AccuracySec"), "1s")
        self.assertEqual(value(t, "Timer", "Persistent"), "true")
        self.assertEqual(values(t, "Install", "WantedBy"), ["timers.target"])

    def test_sysusers(self):
        lines = [l.split() for l in read(SYSTEMD_DIR / "svc.sysusers.conf").splitlines()
                 if l.strip() and not l.startswith("#")]
        self.assertIn(["u", "svc"], [l[:2] for l in lines])


class SystemdAnalyzeTest(unittest.TestCase):
    UNITS = ("svc-fcgi.socket", "svc-fcgi.service", "svc-sender.service", "svc-sender.timer")

    def setUp(self):
        if not SYSTEMD_ANALYZE:
            print("systemd-analyze not available: checked unit contents only")
            self.skipTest("systemd-analyze not available: checked unit contents only")
        self.tmp = Path(tempfile.mkdtemp(prefix="svc-units-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        for name in self.UNITS:
            # The binaries are not installed here: verify would reject ExecStart.
            text = re.sub(r"/usr/local/bin/svc-[a-z]+", "/bin/true", read(SYSTEMD_DIR / name))
            (self.tmp / name).write_text(text)

    def test_verify(self):
        r = run([SYSTEMD_ANALYZE, "verify", *[str(self.tmp / n) for n in self.UNITS]],
                env={**os.environ, "SYSTEMD_LOG_COLOR": "0"})
        # Only complaints about our files count (a machine without systemd
        # running may add unrelated noise about the host's units).
        ours = [l for l in (r.stdout + r.stderr).splitlines()
                if any(n in l for n in self.UNITS) or str(self.tmp) in l]
        self.assertEqual(ours, [], r.stdout + r.stderr)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_timer_fires_every_minute(self):
        on_calendar = value(parse_unit(SYSTEMD_DIR / "svc-sender.timer"), "Timer", "OnCalendar")
        if on_calendar is None:
            self.skipTest("timer uses OnUnitActiveSec, checked in SystemdUnitsTest")
        r = run([SYSTEMD_ANALYZE, "calendar", "--iterations=3", on_calendar], env={**os.environ, "TZ": "UTC"})
        if r.returncode != 0:
            self.skipTest(f"systemd-analyze calendar failed: {r.stderr.strip()}")
        stamps = re.findall(r"(?:Next elapse|Iter\. #\d+): \S+ (\S+ \S+)", r.stdout)
        self.assertEqual(len(stamps), 3, r.stdout)
        times = [time.mktime(time.strptime(s, "%Y-%m-%d %H:%M:%S")) for s in stamps]
        self.assertEqual([b - a for a, b in zip(times, times[1:])], [60.0, 60.0])

    def test_security_exposure(self):
        for name in ("svc-fcgi.service", "svc-sender.service"):
            r = run([SYSTEMD_ANALYZE, "security", "--offline=yes", "--no-pager", str(self.tmp / name)])
            found = re.search(r"Overall exposure level for \S+: ([0-9.]+)", r.stdout + r.stderr)
            if not found:
                self.skipTest("systemd-analyze security --offline not supported here")
            self.assertLessEqual(float(found.group(1)), 2.0, r.stdout)


if __name__ == "__main__":
    runner.main()

#!/usr/bin/env python3
"""The front secret's deploy files (issue 22, item 6; docs/deploy.md "The
front secret"):

- every nginx server block that reaches svc-fcgi (production, local stack,
  cluster) includes the secret file at server level, by a pattern that
  matches that one file, and nothing else of the tree passes the parameter;
- the package's postinst makes /etc/svc/front-secret (root:svc 0640) and
  /etc/nginx/svc-front-secret.conf (root 0600) with the same secret, in a
  form svc-fcgi accepts, and keeps them on a second run (upgrade). As root
  only, into a throwaway DPKG_ROOT (skipped, saying so, otherwise).

Stdlib only. Env: SVC_SOURCE_DIR.
"""

import os
import re
import shutil
import stat
import subprocess
import tempfile
import unittest
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
INCLUDES = {
    "nginx/svc.conf": "include svc-front-secret.con[f];",
    "nginx/stack.conf.in": "include @PREFIX@/svc-front-secret.con[f];",
    "nginx/cluster.conf.in": "include @PREFIX@/svc-front-secret.con[f];",
}
SECRET_LINE = re.compile(r'^fastcgi_param\s+SVC_FRONT_SECRET\s+"([A-Za-z0-9_-]{43,256})";$', re.M)


def strip_comments(text):
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def server_blocks(text):
    """The bodies of every `server { ... }` block (brace-matched)."""
    blocks = []
    for m in re.finditer(r"\bserver\s*\{", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        blocks.append(text[m.end():i - 1])
    return blocks


class NginxIncludesTest(unittest.TestCase):
    def test_each_server_block_includes_the_secret_at_server_level(self):
        for name, include in INCLUDES.items():
            with self.subTest(file=name):
                # The blocks that pass requests to svc (a port-80 redirect does not).
                blocks = [b for b in server_blocks(strip_comments((SOURCE_DIR / name).read_text()))
                          if "svc-locations.conf" in b]
                self.assertTrue(blocks, name)
                for body in blocks:
                    top_level = re.sub(r"\blocation\b[^{]*\{[^{}]*\}", "", body)
                    self.assertIn(include, top_level)

    def test_no_other_file_passes_the_parameter(self):
        """A location that set it (or any fastcgi_param) would drop the
        server-level ones there; only the generated include may set it."""
        for path in (SOURCE_DIR / "nginx").rglob("*"):
            if path.is_file():
                self.assertNotIn("SVC_FRONT_SECRET", strip_comments(path.read_text()), path)


@unittest.skipUnless(os.geteuid() == 0, "postinst test needs root (systemd-sysusers/tmpfiles with --root)")
class PostinstTest(unittest.TestCase):
    def setUp(self):
        if not (shutil.which("systemd-sysusers") and shutil.which("systemd-tmpfiles")):
            self.skipTest("systemd-sysusers / systemd-tmpfiles not installed")
        self.root = Path(tempfile.mkdtemp(prefix="svc-postinst-"))
        self.addCleanup(shutil.rmtree, self.root, ignore_errors=True)
        for kind in ("sysusers", "tmpfiles"):
            target = self.root / "usr/lib" / (kind + ".d")
            target.mkdir(parents=True)
            shutil.copy(SOURCE_DIR / "systemd" / ("svc.%s.conf" % kind), target / "svc.conf")
        (self.root / "etc/nginx").mkdir(parents=True)

    def postinst(self):
        r = subprocess.run(["sh", str(SOURCE_DIR / "packaging/postinst"), "configure"], capture_output=True,
                           text=True, timeout=60, env=dict(os.environ, DPKG_ROOT=str(self.root)))
        self.assertEqual(r.returncode, 0, r.stderr)

    def svc_gid(self):
        for line in (self.root / "etc/group").read_text().splitlines():
            fields = line.split(":")
            if fields[0] == "svc":
                return int(fields[2])
        self.fail("postinst made no group svc")

    def test_makes_both_files_with_one_secret_and_keeps_them(self):
        self.postinst()
        secret_file = self.root / "etc/svc/front-secret"
        include = self.root / "etc/nginx/svc-front-secret.conf"
        secret = secret_file.read_text()
        self.assertRegex(secret, r"^[A-Za-z0-9_-]{43}\n$")
        m = SECRET_LINE.search(include.read_text())
        self.assertIsNotNone(m, include.read_text())
        self.assertEqual(m.group(1), secret.strip())

        st = secret_file.stat()
        self.assertEqual((stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid), (0o640, 0, self.svc_gid()))
        st = include.stat()
        self.assertEqual((stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid), (0o600, 0, 0))

        self.postinst()  # an upgrade keeps the secret
        self.assertEqual(secret_file.read_text(), secret)
        self.assertEqual(SECRET_LINE.search(include.read_text()).group(1), secret.strip())

    def test_a_missing_half_makes_a_new_pair(self):
        self.postinst()
        old = (self.root / "etc/svc/front-secret").read_text()
        (self.root / "etc/nginx/svc-front-secret.conf").unlink()
        self.postinst()
        new = (self.root / "etc/svc/front-secret").read_text()
        self.assertNotEqual(new, old)
        self.assertEqual(SECRET_LINE.search((self.root / "etc/nginx/svc-front-secret.conf").read_text()).group(1),
                         new.strip())


if __name__ == "__main__":
    unittest.main(verbosity=2)

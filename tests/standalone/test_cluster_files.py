"""The files of the local cluster (scripts/cluster.sh, docs/cluster.md) that
can be checked without root or a cluster: nginx/cluster.conf.in rendered the
way cluster.sh renders it is a valid nginx.conf that uses the shared snippets
and never replays a non-idempotent request; cluster.sh parses and knows its
verbs."""

import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR", Path(__file__).resolve().parents[2]))
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def render(prefix, apps=("10.9.0.21", "10.9.0.22")):
    """What render_front in scripts/cluster.sh writes (placeholders outside comments)."""
    fcgi = "".join("        server %s:9000 max_fails=1 fail_timeout=5s;\n" % a for a in apps)
    hashing = "".join("        server %s:9001 max_fails=1 fail_timeout=5s;\n" % a for a in apps)
    outbound = "".join("        server %s:9002 max_fails=1 fail_timeout=5s;\n" % a for a in apps)
    out = []
    for line in (SOURCE_DIR / "nginx" / "cluster.conf.in").read_text().splitlines(keepends=True):
        line = line.replace("@PREFIX@", str(prefix)).replace("@HTTP_PORT@", "18080")
        line = line.replace("@ACCESS_LOG@", "access_log off;").replace("@SOURCE_DIR@", str(SOURCE_DIR))
        if not line.startswith("#"):
            line = line.replace("@FCGI_SERVERS@", fcgi).replace("@HASHING_SERVERS@", hashing)
            line = line.replace("@OUTBOUND_SERVERS@", outbound)
        out.append(line)
    return "".join(out)


class ClusterFilesTest(unittest.TestCase):

    def test_front_nginx_conf_is_valid(self):
        with tempfile.TemporaryDirectory() as tmp:
            conf = Path(tmp) / "nginx.conf"
            text = render(tmp)
            conf.write_text(text)
            self.assertNotIn("@", "".join(l for l in text.splitlines() if not l.lstrip().startswith("#")))
            r = subprocess.run([NGINX, "-t", "-c", str(conf), "-p", tmp, "-e", str(Path(tmp) / "t.log")],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_front_uses_the_shared_snippets_and_both_hosts(self):
        text = render("/tmp/x")
        for snippet in ("svc-fastcgi-params.conf", "svc-message-access.conf", "svc-locations.conf",
                        "svc-reset-page.conf"):
            self.assertIn("nginx/snippets/" + snippet, text)
        self.assertEqual(text.count("server 10.9.0.21:9000"), 1)
        self.assertEqual(text.count("server 10.9.0.22:9001"), 1)
        self.assertEqual(text.count("server 10.9.0.21:9002"), 1)
        self.assertNotIn("keepalive ", text.replace("keepalive_", ""))

    def test_never_replays_non_idempotent_requests(self):
        code = [l for l in render("/tmp/x").splitlines() if not l.lstrip().startswith("#")]
        nxt = [l for l in code if "fastcgi_next_upstream " in l]
        self.assertTrue(nxt)
        self.assertFalse(any("non_idempotent" in l for l in nxt), nxt)

    def test_cluster_script_parses_and_lists_its_verbs(self):
        script = SOURCE_DIR / "scripts" / "cluster.sh"
        self.assertEqual(subprocess.run(["bash", "-n", str(script)]).returncode, 0)
        text = script.read_text()
        for verb in ("up", "down", "status", "kill-app", "start-app", "kill-db", "start-db", "partition-db",
                     "heal-db", "kill-sender", "start-sender", "wipe-db", "restart-app", "kill-workers"):
            self.assertIn("\n  %s)" % verb, text)


if __name__ == "__main__":
    runner.main()

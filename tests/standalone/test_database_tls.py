#!/usr/bin/env python3
"""TLS to the database (issue 22, item 13): a MariaDB of its own, started
here with a certificate from a CA made here and require_secure_transport,
and svc's own client (svc-admin migrate, through db::Database and
Connector/C++) with and without [database] ssl_ca / ssl_verify.

- without ssl_* the server refuses the client (and, as a control, accepts
  the very same client once the server stops requiring TLS);
- with ssl_ca of the server's CA the client connects, over TLS;
- with another CA it is refused: the certificate is checked;
- ssl_verify = false still needs the chain, it only skips the name: a
  certificate for another name passes with it and fails without.

Needs mariadbd, mariadb-install-db, openssl and a built svc-admin; skips
(and says so) when one is missing. Env: SVC_BIN_DIR, SVC_SOURCE_DIR.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import unittest
from pathlib import Path

from procs import wait_until

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BIN_DIR = Path(os.environ.get("SVC_BIN_DIR") or SOURCE_DIR / "build")
SVC_ADMIN = str(BIN_DIR / "svc-admin")
TOOLS = ("mariadbd", "mariadb-install-db", "mariadb", "openssl")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120, **kw)


class DatabaseTlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = [t for t in TOOLS if not shutil.which(t)]
        if missing:
            raise unittest.SkipTest("not installed: " + ", ".join(missing))
        if not os.access(SVC_ADMIN, os.X_OK):
            raise unittest.SkipTest("%s is not built" % SVC_ADMIN)
        cls.dir = Path(tempfile.mkdtemp(prefix="svc-db-tls-"))
        cls.server = None
        try:
            cls.make_certificates()
            cls.start_server()
            cls.keys = cls.keys_section()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.server and cls.server.poll() is None:
            cls.server.send_signal(signal.SIGTERM)
            try:
                cls.server.wait(30)
            except subprocess.TimeoutExpired:
                cls.server.kill()
                cls.server.wait(10)
        shutil.rmtree(cls.dir, ignore_errors=True)

    # --- the peers ------------------------------------------------------------
    @classmethod
    def openssl(cls, *args):
        r = run("openssl", *args, cwd=cls.dir)
        assert r.returncode == 0, r.stderr

    @classmethod
    def make_ca(cls, name):
        cls.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-days", "2", "-subj", "/CN=" + name, "-keyout", name + ".key", "-out", name + ".pem")

    @classmethod
    def make_server_cert(cls, name, ca, alt_names):
        cls.openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj",
                    "/CN=" + name, "-keyout", name + ".key", "-out", name + ".csr")
        (cls.dir / (name + ".ext")).write_text("subjectAltName=%s\nbasicConstraints=CA:FALSE\n" % alt_names)
        cls.openssl("x509", "-req", "-in", name + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
                    "-CAcreateserial", "-days", "2", "-extfile", name + ".ext", "-out", name + ".pem")

    @classmethod
    def make_certificates(cls):
        cls.make_ca("ca")
        cls.make_ca("other-ca")
        cls.make_server_cert("server", "ca", "IP:127.0.0.1,DNS:127.0.0.1,DNS:localhost")

    @classmethod
    def start_server(cls, cert="server"):
        data = cls.dir / "data"
        root = ["--user=root"] if os.geteuid() == 0 else []
        if not data.exists():
            r = run("mariadb-install-db", "--no-defaults", "--datadir=%s" % data, *root,
                    "--auth-root-authentication-method=normal", "--skip-test-db")
            assert r.returncode == 0, r.stdout + r.stderr
        cls.port = free_port()
        cls.sock = str(cls.dir / "mysql.sock")
        cls.server = subprocess.Popen(
            ["mariadbd", "--no-defaults", "--datadir=%s" % data, "--socket=%s" % cls.sock, "--port=%d" % cls.port,
             "--bind-address=127.0.0.1", "--pid-file=%s" % (cls.dir / "mysql.pid"),
             "--log-error=%s" % (cls.dir / "mariadb.log"), "--skip-log-bin", "--innodb-buffer-pool-size=32M",
             "--ssl-ca=%s" % (cls.dir / "ca.pem"), "--ssl-cert=%s" % (cls.dir / (cert + ".pem")),
             "--ssl-key=%s" % (cls.dir / (cert + ".key")), "--require-secure-transport=ON"] + root,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        up = wait_until(lambda: cls.root_sql("SELECT 1").returncode == 0, 60, step=0.2)
        assert up, (cls.dir / "mariadb.log").read_text(errors="replace")
        r = cls.root_sql("CREATE DATABASE IF NOT EXISTS svc CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci; "
                         "CREATE USER IF NOT EXISTS 'svc'@'%' IDENTIFIED BY 'tls-test-pw'; "
                         "CREATE USER IF NOT EXISTS 'svc'@'localhost' IDENTIFIED BY 'tls-test-pw'; "
                         "GRANT ALL PRIVILEGES ON svc.* TO 'svc'@'%'; "
                         "GRANT ALL PRIVILEGES ON svc.* TO 'svc'@'localhost'")
        assert r.returncode == 0, r.stderr

    @classmethod
    def root_sql(cls, statement):
        """As root over the unix socket (require_secure_transport counts a socket as secure)."""
        return run("mariadb", "--no-defaults", "--socket=%s" % cls.sock, "-uroot", "-N", "-B", "-e", statement)

    @classmethod
    def keys_section(cls):
        out = run(SVC_ADMIN, "keygen").stdout
        return "\n".join(line for line in out.splitlines() if line.strip() and not line.startswith("#")) + "\n"

    # --- svc's client ---------------------------------------------------------
    def migrate(self, **tls):
        """svc-admin migrate over TCP with the given [database] ssl_* keys."""
        lines = "".join("%s = %s\n" % (k, v) for k, v in tls.items())
        conf = self.dir / "svc.conf"
        conf.write_text("[database]\nhost = 127.0.0.1\nport = %d\nuser = svc\npassword = tls-test-pw\nname = svc\n"
                        "connect_timeout = 5\n%s\n%s" % (self.port, lines, self.keys))
        return run(SVC_ADMIN, "--config", str(conf), "migrate", "--sql-dir", str(SOURCE_DIR / "sql"))

    def assert_refused(self, result, *words):
        self.assertNotEqual(result.returncode, 0, result.stdout + result.stderr)
        for word in words:
            self.assertIn(word, result.stderr)
        self.assertNotIn("tls-test-pw", result.stdout + result.stderr, "the password is never printed")

    def test_a_client_without_tls_is_refused_by_a_server_that_requires_it(self):
        self.assert_refused(self.migrate(), "database connection failed", "127.0.0.1:%d" % self.port)
        # Control: the same client and account pass once the server stops
        # requiring TLS, so the refusal above was the missing TLS.
        self.assertEqual(self.root_sql("SET GLOBAL require_secure_transport = OFF").returncode, 0)
        try:
            plain = self.migrate()
            self.assertEqual(plain.returncode, 0, plain.stderr)
        finally:
            self.assertEqual(self.root_sql("SET GLOBAL require_secure_transport = ON").returncode, 0)

    def test_ssl_ca_of_the_servers_ca_connects_over_tls(self):
        result = self.migrate(ssl_ca=self.dir / "ca.pem")
        self.assertEqual(result.returncode, 0, result.stderr)
        tables = self.root_sql("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'svc' "
                               "AND table_name = 'svc_schema_migrations'")
        self.assertEqual(tables.stdout.strip(), "1")

    def test_a_certificate_of_another_ca_is_refused(self):
        self.assert_refused(self.migrate(ssl_ca=self.dir / "other-ca.pem"), "database connection failed")
        self.assert_refused(self.migrate(ssl_ca=self.dir / "other-ca.pem", ssl_verify="false"),
                            "database connection failed")

    def test_ssl_verify_false_skips_only_the_name(self):
        """A certificate of the right CA for another name: refused with the
        name check, accepted without it."""
        self.make_server_cert("wrong-name", "ca", "DNS:db.example.invalid")
        self.server.send_signal(signal.SIGTERM)
        self.server.wait(30)
        type(self).start_server(cert="wrong-name")
        try:
            self.assert_refused(self.migrate(ssl_ca=self.dir / "ca.pem"), "database connection failed")
            unverified = self.migrate(ssl_ca=self.dir / "ca.pem", ssl_verify="false")
            self.assertEqual(unverified.returncode, 0, unverified.stderr)
        finally:
            self.server.send_signal(signal.SIGTERM)
            self.server.wait(30)
            type(self).start_server()


if __name__ == "__main__":
    unittest.main(verbosity=2)

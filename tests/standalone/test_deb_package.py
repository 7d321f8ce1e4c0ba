#!/usr/bin/env python3
"""The Debian package: CPack builds it from the build directory under test
(the same install rules `make deb` uses, without a second Release build),
then it is installed into a throwaway root and checked:

- every path of the "Package layout" table of docs/deploy.md is there;
- Depends names the runtime libraries (dpkg-shlibdeps), conffiles lists
  /etc/svc/svc.conf and the nginx files, maintainer scripts are executable;
- as root, `dpkg --root` installs it and runs postinst (chrootless, with
  DPKG_ROOT): the user svc exists and /etc/svc is root:svc 0750 with
  svc.conf 0640 in that root; the host is untouched (no user, no database);
  without root the archive is unpacked with `dpkg -x` and only the files
  are checked;
- the installed svc-admin finds its migrations in /usr/share/svc/sql;
- lintian reports no errors and no missing manual page; `man` shows the
  installed pages.

Env: SVC_BIN_DIR = configured and built build directory, SVC_SOURCE_DIR.
Takes about a minute (cpack strips the programs, lintian reads them).
"""

import os
import re
import shutil
import stat
import subprocess
import tempfile
import unittest
from pathlib import Path

import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BIN_DIR = Path(os.environ.get("SVC_BIN_DIR") or SOURCE_DIR / "build")
PATH = os.environ.get("PATH", "") + ":/usr/sbin:/sbin:/usr/bin:/bin"
IS_ROOT = os.geteuid() == 0


def run(*cmd, check=True, env=None, cwd=None):
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    if check and result.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (" ".join(map(str, cmd)), result.returncode,
                                                         result.stdout[-4000:], result.stderr[-4000:]))
    return result


def documented_layout():
    """(repository file, installed path) rows of docs/deploy.md's "Package layout" table."""
    text = (SOURCE_DIR / "docs" / "deploy.md").read_text()
    section = text.split("### Package layout", 1)[1].split("\n#", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[1].startswith("/"):
            rows.append((cells[0], cells[1]))
    return rows


def group_exists(name, root):
    return any(line.split(":")[0] == name for line in (root / "etc" / "group").read_text().splitlines())


class DebPackage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="svc-deb-"))
        out = cls.tmp / "out"
        run("cpack", "-G", "DEB", "--config", BIN_DIR / "CPackConfig.cmake", "-B", out, cwd=BIN_DIR)
        debs = sorted(out.glob("svc_*.deb"))
        if len(debs) != 1:
            raise AssertionError("cpack made %r" % debs)
        cls.deb = debs[0]
        cls.root = cls.tmp / "root"
        cls.host_passwd = Path("/etc/passwd").read_text()
        cls.host_group = Path("/etc/group").read_text()
        if IS_ROOT:
            for d in ("var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers", "var/log", "etc"):
                (cls.root / d).mkdir(parents=True, exist_ok=True)
            (cls.root / "var/lib/dpkg/status").touch()
            cls.dpkg = run("dpkg", "--root=%s" % cls.root, "--force-depends", "--force-script-chrootless",
                           "--log=%s" % (cls.tmp / "dpkg.log"), "-i", cls.deb,
                           env=dict(os.environ, PATH=PATH))
        else:
            run("dpkg", "-x", cls.deb, cls.root)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def field(self, name):
        return run("dpkg-deb", "-f", self.deb, name).stdout.strip()

    def test_name_version_and_file_name(self):
        self.assertEqual(self.field("Package"), "svc")
        self.assertRegex(self.deb.name, r"^svc_\d+\.\d+\.\d+-1_[a-z0-9]+\.deb$")

    def test_depends_on_the_runtime_libraries(self):
        depends = self.field("Depends")
        for lib in ("libsodium", "libcurl", "libmysqlcppconn", "libfcgi", "libpoco", "libssl", "systemd"):
            self.assertIn(lib, depends)
        # dpkg-shlibdeps versions the libraries: "libsodium23 (>= 1.0.14)".
        self.assertRegex(depends, r"libsodium\d+ \(>= ")

    def test_control_files(self):
        control = self.tmp / "control"
        run("dpkg-deb", "-e", self.deb, control)
        conffiles = (control / "conffiles").read_text().split()
        self.assertIn("/etc/svc/svc.conf", conffiles)
        for name in ("svc-locations.conf", "svc-fastcgi-params.conf", "svc-message-access.conf"):
            self.assertIn("/etc/nginx/snippets/" + name, conffiles)
        self.assertIn("/etc/nginx/sites-available/svc.conf", conffiles)
        for script in ("postinst", "prerm", "postrm"):
            mode = (control / script).stat().st_mode
            self.assertEqual(stat.S_IMODE(mode), 0o755, script)
            run("sh", "-n", control / script)
        # postinst creates the user and directories and nothing else.
        postinst = (control / "postinst").read_text()
        self.assertNotRegex(postinst, r"(?m)^[^#]*\b(mysql|mariadb|svc-admin)\b")
        self.assertRegex((control / "prerm").read_text(), r"systemctl stop [^\n]*svc-fcgi\.service")

    def test_files_land_where_deploy_md_says(self):
        layout = documented_layout()
        self.assertGreater(len(layout), 10)
        for source, installed in layout:
            target = self.root / installed.lstrip("/")
            if installed.endswith("/"):
                self.assertTrue(target.is_dir(), "%s (from %s) is not a directory" % (installed, source))
                self.assertTrue(any(target.iterdir()), installed)
            else:
                self.assertTrue(target.is_file(), "%s (from %s) is missing" % (installed, source))
        migrations = sorted(p.name for p in (SOURCE_DIR / "sql").glob("[0-9][0-9][0-9]_*.sql"))
        self.assertEqual(sorted(p.name for p in (self.root / "usr/share/svc/sql").iterdir()), migrations)

    def test_units_point_at_the_installed_programs(self):
        units = self.root / "usr/lib/systemd/system"
        for unit in ("svc-fcgi.service", "svc-sender.service", "svc-purge.service"):
            text = (units / unit).read_text()
            self.assertNotIn("/usr/local", text)
            for program in re.findall(r"(?m)^Exec\w+=(/usr/bin/\S+)", text):
                self.assertTrue((self.root / program.lstrip("/")).is_file(), program)

    def test_installed_admin_finds_its_migrations(self):
        conf = self.tmp / "unreachable.conf"
        keys = run(BIN_DIR / "svc-admin", "keygen").stdout
        conf.write_text("[database]\nsocket = %s/none.sock\nuser = nobody\n%s" % (self.tmp, keys))
        env = {k: v for k, v in os.environ.items() if k != "SVC_SQL_DIR"}
        result = run(self.root / "usr/bin/svc-admin", "--config", conf, "migrate", check=False, env=env)
        self.assertNotEqual(result.returncode, 0)  # no database there
        self.assertIn("migration files in %s/usr/share/svc/sql" % self.root, result.stdout)

    @unittest.skipUnless(IS_ROOT, "dpkg --root and the maintainer scripts' chown need root")
    def test_postinst_made_user_and_directories_in_the_root_only(self):
        passwd = (self.root / "etc/passwd").read_text()
        entry = [line for line in passwd.splitlines() if line.startswith("svc:")]
        self.assertEqual(len(entry), 1, passwd)
        self.assertTrue(entry[0].endswith(":/usr/sbin/nologin"), entry[0])
        self.assertTrue(group_exists("svc", self.root))
        svc_gid = int([line for line in (self.root / "etc/group").read_text().splitlines()
                       if line.startswith("svc:")][0].split(":")[2])
        etc_svc = (self.root / "etc/svc").stat()
        self.assertEqual(stat.S_IMODE(etc_svc.st_mode), 0o750)
        self.assertEqual((etc_svc.st_uid, etc_svc.st_gid), (0, svc_gid))
        conf = (self.root / "etc/svc/svc.conf").stat()
        self.assertEqual(stat.S_IMODE(conf.st_mode), 0o640)
        self.assertEqual(conf.st_gid, svc_gid)
        status = (self.root / "var/lib/dpkg/status").read_text()
        self.assertIn("Status: install ok installed", status)
        # The host is untouched: postinst wrote into DPKG_ROOT only.
        self.assertEqual(Path("/etc/passwd").read_text(), self.host_passwd)
        self.assertEqual(Path("/etc/group").read_text(), self.host_group)

    def test_lintian_reports_no_errors(self):
        lintian = shutil.which("lintian", path=PATH)
        self.assertIsNotNone(lintian, "lintian is missing: scripts/install-deps.sh installs it")
        result = run(lintian, "--fail-on", "error", self.deb, check=False)
        errors = [line for line in result.stdout.splitlines() if line.startswith("E:")]
        self.assertEqual(errors, [], result.stdout)
        # Every program has its manual page (svc-admin(8), svc-fcgi(8), svc-sender(8)).
        self.assertNotIn("no-manual-page", result.stdout)
        self.assertNotIn("groff-message", result.stdout)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_man_shows_the_installed_pages(self):
        man_root = self.root / "usr/share/man"
        for page, title in (("man8/svc-admin.8.gz", "SVC-ADMIN(8)"), ("man8/svc-fcgi.8.gz", "SVC-FCGI(8)"),
                            ("man8/svc-sender.8.gz", "SVC-SENDER(8)"), ("man5/svc.conf.5.gz", "SVC.CONF(5)")):
            with self.subTest(page):
                shown = run("man", "-l", man_root / page, env=dict(os.environ, MANPAGER="cat", MANWIDTH="80"))
                self.assertTrue(shown.stdout.startswith(title), shown.stdout[:200])
        # `man svc-admin` finds it by name under the installed MANPATH.
        by_name = run("man", "-M", man_root, "svc-admin", env=dict(os.environ, MANPAGER="cat", MANWIDTH="80"))
        self.assertIn("migrate", by_name.stdout)
        completion = self.root / "usr/share/bash-completion/completions/svc-admin"
        self.assertIn("complete -F _svc_admin svc-admin", completion.read_text())


if __name__ == "__main__":
    runner.main()

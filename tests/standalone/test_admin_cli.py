"""svc-admin's command line as a newcomer meets it (issue 36, item 11), with
the built program and no database: `help` and `--help` print the commands
wherever they stand, `--version` prints the version, a command family
(`site`, `template`, ...) alone or with --help prints its own commands, a
command with --help prints its own line without opening the configuration,
an unknown word is named and the nearest command suggested, and a missing
configuration file says how to point at one (--config FILE, SVC_CONFIG).
"""

import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BIN_DIR = Path(os.environ.get("SVC_BIN_DIR") or SOURCE_DIR / "build")
ADMIN = BIN_DIR / "svc-admin"
MISSING = "/nonexistent/svc-admin-test/svc.conf"


def project_version():
    text = (SOURCE_DIR / "CMakeLists.txt").read_text()
    return re.search(r"project\(svc VERSION ([0-9.]+)", text).group(1)


def admin(*args, env=None):
    """(exit status, stdout, stderr) of svc-admin with a configuration that does not exist."""
    environment = dict(os.environ, SVC_CONFIG=MISSING)
    environment.update(env or {})
    result = subprocess.run([str(ADMIN)] + list(args), capture_output=True, text=True, env=environment, timeout=30)
    return result.returncode, result.stdout, result.stderr


class AdminCommandLine(unittest.TestCase):
    def assertFamilyHelp(self, text, family, others):
        commands = text.split("commands:\n", 1)[1].split("\nsite options:", 1)[0]
        lines = [line for line in commands.splitlines() if re.match(r"^  [a-z]", line)]
        self.assertTrue(lines, text)
        for line in lines:
            self.assertTrue(line.startswith("  %s " % family), line)
        for other in others:
            self.assertNotIn("  %s " % other, text)

    def test_help_in_every_spelling(self):
        code, full, _ = admin("--help")
        self.assertEqual(code, 0)
        self.assertIn("usage: svc-admin", full)
        for args in (("help",), ("-h",), ("--config", MISSING, "help"), ("--config", MISSING, "--help")):
            with self.subTest(args):
                code, out, err = admin(*args)
                self.assertEqual((code, out, err), (0, full, ""))

    def test_help_is_grouped_by_task(self):
        _, full, _ = admin("--help")
        commands = full.split("commands:\n", 1)[1].split("\nsite options:", 1)[0]
        groups, current = {}, None
        for line in commands.splitlines():
            if re.match(r"^[a-z].*:$", line):
                current = line[:-1]
                groups[current] = []
            elif re.match(r"^  [a-z]", line):
                self.assertIsNotNone(current, line)
                groups[current].append(" ".join(re.match(r"^  ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*){0,2})", line)
                                                .group(1).split()[:3]))
        self.assertEqual(list(groups), ["sites and their administrators", "users", "mail and templates",
                                        "sign-in, tokens and keys", "webhooks", "operations and retention"])
        self.assertTrue(all(groups.values()), groups)
        where = {name: g for g, names in groups.items() for name in names}
        self.assertEqual(where["site admin add"], "sites and their administrators")
        self.assertEqual(where["user list"], "users")
        self.assertEqual(where["template set"], "mail and templates")
        self.assertEqual(where["signing-keys rotate"], "sign-in, tokens and keys")
        self.assertEqual(where["audit purge"], "operations and retention")
        self.assertEqual(where["migrate"], "operations and retention")

    def test_version(self):
        for args in (("--version",), ("--config", MISSING, "--version"), ("version",)):
            with self.subTest(args):
                code, out, err = admin(*args)
                self.assertEqual((code, out, err), (0, "svc-admin %s\n" % project_version(), ""))

    def test_a_family_prints_its_own_commands(self):
        families = {"site": ("create", "set", "show", "list"), "template": ("set", "enable", "list"),
                    "outbox": ("stats", "retry"), "signing-keys": ("rotate", "retire")}
        for family, subs in families.items():
            others = [f for f in families if f != family]
            for args, want_code in (((family, "--help"), 0), (("help", family), 0), ((family,), 2)):
                with self.subTest(args):
                    code, out, err = admin(*args)
                    self.assertEqual(code, want_code, out + err)
                    text = out if want_code == 0 else err
                    self.assertIn("usage: svc-admin [--config FILE] %s COMMAND" % family, text)
                    self.assertFamilyHelp(text, family, others)
                    for sub in subs:
                        self.assertRegex(text, r"(?m)^  %s %s\b" % (family, sub))
                    self.assertNotIn("unknown command", out + err)
        code, out, _ = admin("site", "--help")
        self.assertIn("site options:", out)
        self.assertIn("--email-from ADDR", out)

    def test_a_command_prints_its_own_help_without_the_configuration(self):
        code, out, err = admin("site", "create", "--help")
        self.assertEqual((code, err), (0, ""), out + err)
        self.assertRegex(out, r"(?m)^  site create --name N")
        self.assertNotRegex(out, r"(?m)^  site set\b")
        self.assertIn("site options:", out)
        code, out, err = admin("outbox", "list", "--help")
        self.assertEqual((code, err), (0, ""))
        self.assertRegex(out, r"(?m)^  outbox list \[--status")
        self.assertNotIn("site options:", out)
        code, out, err = admin("migrate", "--help")
        self.assertEqual((code, err), (0, ""))
        self.assertRegex(out, r"(?m)^  migrate \[--sql-dir DIR\]")

    def test_an_unknown_command_suggests_the_nearest(self):
        cases = {("sites", "list"): "site list", ("site", "lst"): "site list", ("migrat",): "migrate",
                 ("templte", "set"): "template set", ("doctr",): "doctor", ("outbox", "stat"): "outbox stats",
                 ("site", "crate", "--name", "x"): "site create"}
        for args, nearest in cases.items():
            with self.subTest(args):
                code, out, err = admin(*args)
                self.assertEqual((code, out), (2, ""), err)
                words = " ".join(a for a in args if not a.startswith("--") and a != "x")
                self.assertIn("unknown command '%s'" % words, err)
                self.assertIn("did you mean 'svc-admin %s'?" % nearest, err)
        code, out, err = admin("frobnicate")
        self.assertEqual(code, 2)
        self.assertIn("unknown command 'frobnicate'", err)
        self.assertNotIn("did you mean", err)
        self.assertIn("svc-admin help", err)

    def test_a_missing_configuration_file_says_how_to_name_one(self):
        code, out, err = admin("site", "list")
        self.assertEqual(code, 1)
        self.assertIn("cannot read configuration file %s" % MISSING, err)
        self.assertIn("--config FILE", err)
        self.assertIn("SVC_CONFIG", err)
        with tempfile.TemporaryDirectory() as tmp:
            code, _, err = admin("--config", os.path.join(tmp, "none.conf"), "outbox", "stats")
            self.assertEqual(code, 1)
            self.assertIn("cannot read configuration file %s" % os.path.join(tmp, "none.conf"), err)
            self.assertIn("--config FILE", err)


if __name__ == "__main__":
    runner.main()

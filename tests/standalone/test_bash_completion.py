"""The bash completion of svc-admin that the build makes from `svc-admin
--help` (packaging/svc_admin_help.py): bash, with Debian's bash-completion
loaded, runs its function on command lines and offers every command, each
command's subcommands and options as the help lists them, and the values
the help spells out (a|b|c, files, directories)."""

import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BIN_DIR = Path(os.environ.get("SVC_BIN_DIR") or SOURCE_DIR / "build")
COMPLETION = BIN_DIR / "bash-completion" / "svc-admin"
BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"  # Debian's bash-completion
COMMAND = re.compile(r"^  ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?(?: ([a-z][a-z-]*))?(?=\s|$)")
OPTION = re.compile(r"--[a-z][a-z-]*")


def complete(*words, cwd=None):
    """The words bash offers for the last of `words` (the one being typed)."""
    line = "svc-admin " + " ".join(words)
    script = ('source %s; source %s; COMP_WORDS=(svc-admin %s); COMP_CWORD=%d; COMP_LINE=%s; '
              'COMP_POINT=${#COMP_LINE}; _svc_admin; printf "%%s\\n" "${COMPREPLY[@]}"'
              % (BASH_COMPLETION, COMPLETION, " ".join("'%s'" % w for w in words), len(words),
                 "'%s'" % line))
    result = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True,
                            cwd=cwd, check=True)
    return sorted(w for w in result.stdout.split("\n") if w)


def help_commands():
    """command -> options named on its lines of `svc-admin --help`."""
    text = subprocess.run([str(BIN_DIR / "svc-admin"), "--help"], capture_output=True, text=True).stdout
    commands, current = {}, None
    for line in text.split("commands:\n")[1].split("\nsite options:")[0].splitlines():
        m = COMMAND.match(line)
        if m:
            current = tuple(w for w in m.groups() if w)
            commands[current] = set()
        if current:
            commands[current] |= set(OPTION.findall(line))
    return commands


class BashCompletion(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        assert Path(BASH_COMPLETION).is_file(), "bash-completion missing: scripts/install-deps.sh installs it"
        assert COMPLETION.is_file(), "%s missing: the build makes it" % COMPLETION
        cls.commands = help_commands()
        assert len(cls.commands) > 20, cls.commands

    def test_first_words_are_the_commands(self):
        firsts = sorted({c[0] for c in self.commands})
        self.assertEqual(complete(""), sorted(firsts + ["--config", "--help", "--version"]))
        self.assertIn("help", firsts)
        # `svc-admin help WORD`: the help of a command family or command.
        self.assertEqual(complete("help", ""), sorted(f for f in firsts if f != "help"))
        self.assertEqual(complete("help", "si"), ["signing-keys", "site"])
        self.assertEqual(complete("mi"), ["migrate", "mint-customer-id", "mint-user-id"])
        # --config and its value come before the command.
        self.assertEqual(complete("--config", "/etc/svc/svc.conf", "sig"), ["signing-keys"])

    def test_subcommands(self):
        # After each command's leading words, its next word ("site" offers
        # "admin", "site admin" offers "add").
        prefixes = {c[:n] for c in self.commands for n in range(1, len(c))}
        for prefix in sorted(prefixes):
            with self.subTest(" ".join(prefix)):
                subs = sorted({c[len(prefix)] for c in self.commands
                               if len(c) > len(prefix) and c[:len(prefix)] == prefix})
                self.assertEqual(complete(*prefix, ""), subs)
        self.assertEqual(complete("site", "admin", ""), ["add", "list", "remove"])

    def test_every_command_offers_its_options(self):
        for command, options in self.commands.items():
            with self.subTest(" ".join(command)):
                offered = set(complete(*command, "--"))
                self.assertLessEqual(options, offered)
                if command not in (("site", "create"), ("site", "set")):
                    self.assertEqual(offered, options)
        self.assertIn("--vapid-subject", complete("site", "set", "--"))
        self.assertIn("--id", complete("site", "create", "--"))
        self.assertNotIn("--id", complete("site", "set", "--"))
        self.assertEqual(complete("migrate", "--dry-run", "--a"), ["--allow-blocking"])

    def test_option_values(self):
        self.assertEqual(complete("outbox", "list", "--status", ""), ["Failed", "Pending", "Sent"])
        self.assertEqual(complete("signing-keys", "rotate", "--alg", ""), ["ES256", "EdDSA", "RS256"])
        self.assertEqual(complete("template", "priority", "--priority", "b"), ["bulk"])
        self.assertEqual(complete("site", "set", "--active", ""), ["false", "true"])
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "sqlx").mkdir()
            (Path(tmp) / "sqly.conf").write_text("")
            self.assertEqual(complete("migrate", "--sql-dir", "sql", cwd=tmp), ["sqlx"])
            self.assertEqual(complete("--config", "sql", cwd=tmp), ["sqlx", "sqly.conf"])
            self.assertEqual(complete("template", "set", "--subject-file", "sqly", cwd=tmp), ["sqly.conf"])


if __name__ == "__main__":
    runner.main()

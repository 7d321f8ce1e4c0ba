"""The manual pages the build makes (packaging/generated.cmake): svc-admin(8),
svc-fcgi(8) and svc-sender(8) from each program's --help (help2man), and
svc.conf(5) from docs/configuration.md (pandoc). Each renders without a
groff warning (what lintian's groff-message reports), and each names
everything its source names: every svc-admin command and option, every
option of svc-fcgi and svc-sender, every section and key of the
configuration reference."""

import os
import re
import subprocess
import unittest
from pathlib import Path

import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BIN_DIR = Path(os.environ.get("SVC_BIN_DIR") or SOURCE_DIR / "build")
MAN_DIR = BIN_DIR / "man"
PAGES = {"svc-admin.8": "svc-admin", "svc-fcgi.8": "svc-fcgi", "svc-sender.8": "svc-sender", "svc.conf.5": None}
COMMAND = re.compile(r"^  ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?(?: ([a-z][a-z-]*))?(?=\s|$)")
OPTION = re.compile(r"--[a-z][a-z-]*")


def render(page, width="2000n"):
    """(text, groff warnings) of a page; a wide line and no hyphenation keep words whole."""
    result = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-rLL=%s" % width, "-rHY=0", "-P-cbou",
                             str(MAN_DIR / page)], capture_output=True, text=True, check=True)
    return result.stdout, result.stderr


def program_help(program):
    return subprocess.run([str(BIN_DIR / program), "--help"], capture_output=True, text=True).stdout


def configuration_keys():
    """(section, key) of every table row of docs/configuration.md."""
    keys, section = [], None
    for line in (SOURCE_DIR / "docs" / "configuration.md").read_text().splitlines():
        m = re.match(r"^## (\[[a-z.]+\])", line)
        if m:
            section = m.group(1)
        m = re.match(r"^\| `([a-z_]+)` \|", line)
        if m and section:
            keys.append((section, m.group(1)))
    return keys


class ManPages(unittest.TestCase):
    def test_every_page_is_built_and_renders_cleanly(self):
        for page, program in PAGES.items():
            with self.subTest(page):
                self.assertTrue((MAN_DIR / page).is_file(), "%s missing: the build makes it" % page)
                text, warnings = render(page, width="78n")
                self.assertEqual(warnings, "", warnings)
                name = page.rsplit(".", 1)[0]
                self.assertRegex(text, r"NAME\n\s+%s\s+-\s+\S" % re.escape(name))
                self.assertIn("SEE ALSO" if program else "CONFIGURATION", text.upper())

    def test_admin_page_names_every_command_and_option(self):
        text, _ = render("svc-admin.8")
        help_text = program_help("svc-admin")
        commands = [" ".join(w for w in m.groups() if w)
                    for m in map(COMMAND.match, help_text.split("commands:\n")[1].split("\nsite options:")[0].splitlines()) if m]
        self.assertGreater(len(commands), 20, commands)
        for command in commands:
            self.assertRegex(text, r"(?m)^\s+%s\b" % re.escape(command))
        for option in set(OPTION.findall(help_text)):
            self.assertIn(option, text)

    def test_program_pages_name_every_option(self):
        for program in ("svc-fcgi", "svc-sender"):
            with self.subTest(program):
                options = set(OPTION.findall(program_help(program)))
                self.assertIn("--config", options)
                text, _ = render(program + ".8")
                for option in options:
                    self.assertIn(option, text)

    def test_conf_page_names_every_section_and_key(self):
        text, _ = render("svc.conf.5")
        keys = configuration_keys()
        self.assertGreater(len(keys), 60, keys)
        for section in sorted({s for s, _ in keys}):
            self.assertRegex(text, r"(?m)^\s+%s" % re.escape(section))
        for section, key in keys:
            self.assertRegex(text, r"(?m)^\s+%s\b" % re.escape(key), "%s %s" % (section, key))


if __name__ == "__main__":
    runner.main()

"""Every migration in sql/ that changes an existing table (ALTER TABLE,
CREATE/DROP INDEX ... ON) states how it runs: ALGORITHM=INSTANT, or
ALGORITHM=INPLACE (or NOCOPY) with LOCK=NONE, so it never copies or locks a
live table (docs/deploy.md "Upgrades"). Reads each file the way svc-admin
does (statements end at a line that ends in ';', comment lines dropped), so
a new migration of any branch is checked as soon as it lands in sql/."""

import os
import re
import unittest
from pathlib import Path

import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR", Path(__file__).resolve().parents[2]))
CHANGES_A_TABLE = re.compile(
    r"^\s*(ALTER\s+(ONLINE\s+)?(IGNORE\s+)?TABLE\b|(CREATE\s+(OR\s+REPLACE\s+)?(ONLINE\s+)?"
    r"((UNIQUE|FULLTEXT|SPATIAL)\s+)?|DROP\s+)INDEX\b)", re.I)
ALGORITHM = re.compile(r"\bALGORITHM\s*=\s*(\w+)", re.I)
LOCK = re.compile(r"\bLOCK\s*=\s*(\w+)", re.I)


def statements(text):
    out, current = [], ""
    for line in text.splitlines():
        if line.lstrip(" \t").startswith("--"):
            continue
        current += line + "\n"
        if line.rstrip(" \t\r").endswith(";"):
            out.append(current)
            current = ""
    if current.strip():
        out.append(current)
    return out


def problem(statement):
    """Why the statement may copy or lock its table; None when it states an online way."""
    algorithm = ALGORITHM.search(statement)
    lock = LOCK.search(statement)
    algorithm = algorithm.group(1).upper() if algorithm else None
    lock = lock.group(1).upper() if lock else None
    if algorithm is None:
        return "states no ALGORITHM (write ALGORITHM=INSTANT, or ALGORITHM=INPLACE, LOCK=NONE)"
    if algorithm == "INSTANT":
        return None if lock in (None, "NONE") else "ALGORITHM=INSTANT with LOCK=%s" % lock
    if algorithm in ("INPLACE", "NOCOPY"):
        return None if lock == "NONE" else "ALGORITHM=%s without LOCK=NONE" % algorithm
    return "ALGORITHM=%s copies the table" % algorithm


def table_changes():
    """(file, statement) for every statement of sql/NNN_*.sql that changes an existing table."""
    found = []
    for path in sorted((SOURCE_DIR / "sql").glob("[0-9]*_*.sql")):
        for s in statements(path.read_text()):
            if CHANGES_A_TABLE.match(s):
                found.append((path.name, s))
    return found


class MigrationsAreOnline(unittest.TestCase):
    def test_every_table_change_states_an_online_algorithm(self):
        changes = table_changes()
        # sql/ holds at least the seven ALTERs of 003-008; none unseen.
        self.assertGreaterEqual(len(changes), 7, changes)
        bad = ["%s: %s\n  %s" % (name, problem(s), " ".join(s.split())) for name, s in changes if problem(s)]
        self.assertEqual(bad, [], "\n".join(bad))

    def test_the_check_tells_online_from_blocking(self):
        cases = {
            "ALTER TABLE t ADD COLUMN c INT NULL, ALGORITHM=INSTANT;": None,
            "ALTER TABLE t ADD KEY k (c), ALGORITHM=INPLACE, LOCK=NONE;": None,
            "ALTER TABLE t ADD COLUMN c INT NULL;": "states no ALGORITHM",
            "ALTER TABLE t ADD KEY k (c), ALGORITHM=INPLACE;": "without LOCK=NONE",
            "ALTER TABLE t MODIFY c BIGINT, ALGORITHM=COPY;": "copies the table",
            "ALTER TABLE t ADD COLUMN c INT NULL, ALGORITHM=INSTANT, LOCK=SHARED;": "LOCK=SHARED",
        }
        for statement, expected in cases.items():
            with self.subTest(statement):
                got = problem(statement)
                if expected is None:
                    self.assertIsNone(got)
                else:
                    self.assertIn(expected, got)
        self.assertTrue(CHANGES_A_TABLE.match("CREATE UNIQUE INDEX ux ON t (c);"))
        self.assertFalse(CHANGES_A_TABLE.match("CREATE TABLE t (id INT);"))
        self.assertEqual(len(statements("-- ALTER TABLE x;\nALTER TABLE t\n  ADD c INT;\nINSERT 1;\n")), 2)


if __name__ == "__main__":
    runner.main()

"""Every statement that finds a user by address is scoped to a user pool
(issue 47, design "User pools"): a grep of src/ for SQL that names the
`user_email` column, checked against the places that scope it.

- Only src/db/user_repo.cpp may look a user up by address, and each of its
  lookups goes through by_email() (`user_email = ? AND pool_id = ?`) but
  pools_with(), the admin's "which pools hold this address".
- Any other file that names the column in SQL is listed here with what it
  does, so a new lookup by address elsewhere fails this test until it is
  scoped and listed.
"""

import os
import re
import unittest

import runner

SOURCE_DIR = os.environ.get("SVC_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "../..")))

# file -> why its SQL may name user_email without a pool
ALLOWED = {
    "src/db/user_repo.cpp": "the lookups by address, each scoped by by_email(); the column list; the insert",
    "src/db/account_repo.cpp": "the confirmed e-mail change: UPDATE ... WHERE id = ? AND user_email = ? (by id)",
    "src/db/site_admin_repo.cpp": "the site admins' listing joins each admin's address by user id (u.id = a.user_id)",
    "src/db/user_pool_ddl.cpp": "the migration of other auth tables: the unique key (pool_id, user_email)",
}
# A string literal that reads as SQL and names the column.
SQL_WITH_COLUMN = re.compile(r'"[^"\n]*\buser_email\b[^"\n]*"')
SQL_WORDS = re.compile(r"\b(SELECT|WHERE|UPDATE|INSERT|KEY|AND|SET|FROM)\b|= \?|\(user_email")


def sql_mentions():
    """{relative path: [(line number, line)]} of SQL literals naming user_email."""
    found = {}
    for root, _, files in os.walk(os.path.join(SOURCE_DIR, "src")):
        for name in files:
            if not name.endswith((".cpp", ".hpp")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, SOURCE_DIR)
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    for literal in SQL_WITH_COLUMN.findall(line):
                        if SQL_WORDS.search(literal):
                            found.setdefault(rel, []).append((number, line.strip()))
    return found


class AddressQueriesTest(unittest.TestCase):
    def test_only_the_listed_files_name_user_email_in_sql(self):
        found = sql_mentions()
        self.assertIn("src/db/user_repo.cpp", found, "the grep found nothing: is the pattern still right?")
        unexpected = {path: lines for path, lines in found.items() if path not in ALLOWED}
        self.assertEqual(unexpected, {}, "SQL naming user_email outside the pool-scoped places; scope it by pool "
                                         "(db::UserRepo) or list it in ALLOWED with the reason")

    def test_every_lookup_by_address_in_user_repo_binds_the_pool(self):
        with open(os.path.join(SOURCE_DIR, "src/db/user_repo.cpp"), encoding="utf-8") as f:
            text = f.read()
        # The scoped clause, and the table without pools compared with the default pool.
        self.assertIn('"user_email = ? AND pool_id = ?"', text)
        self.assertIn('"user_email = ? AND ? = "', text)
        self.assertIn("p.text(email).integer(pool_)", text)
        # A bare `user_email = ?` appears once more only: pools_with(), which
        # the admin commands use to name the pools of an address.
        bare = [m.start() for m in re.finditer(r'WHERE user_email = \? ORDER BY pool_id', text)]
        self.assertEqual(len(bare), 1, "pools_with() is the one unscoped lookup")
        lookups = [w for w in re.findall(r"\bselect\((by_email\(\)[^,)]*\)|[^,)]*)", text) if not w.startswith("const ")]
        self.assertTrue(lookups)
        for where in lookups:
            self.assertIn(where.strip(), ('by_email().c_str()', '"id = ?"'), "a lookup that is neither by "
                                                                               "id nor pool-scoped: %s" % where)


if __name__ == "__main__":
    runner.main()

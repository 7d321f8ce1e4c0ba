"""svc-admin migrate on the already migrated stack is a no-op: it reports
"0 applied" and leaves the schema and the migration records untouched."""

import os
import re

import svc_stack
from svc_stack import ApiTest, admin, sql

SQL_DIR = os.path.join(svc_stack.SOURCE_DIR, "sql")


def columns():
    return sql("SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, ORDINAL_POSITION, IS_NULLABLE, COLUMN_DEFAULT "
               "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'svc' "
               "ORDER BY TABLE_NAME, ORDINAL_POSITION")


def indexes():
    return sql("SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME "
               "FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'svc' "
               "ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX")


def migration_files():
    return sorted(f for f in os.listdir(SQL_DIR) if re.fullmatch(r"\d{3}_.+\.sql", f))


def migration_rows():
    return sql("SELECT version, name, checksum, applied_at FROM svc_schema_migrations ORDER BY version")


class MigrateTest(ApiTest):

    def test_second_migrate_is_a_no_op(self):
        files = migration_files()
        self.assertTrue(files, "no sql/NNN_*.sql files in %s" % SQL_DIR)
        cols, idx, rows = columns(), indexes(), migration_rows()
        self.assertTrue(cols)

        result = admin("migrate", "--sql-dir", SQL_DIR)
        output = result.stdout + result.stderr
        self.assertRegex(output, r"\b0 applied\b", output)
        self.assertIn("%d already present" % len(files), output)
        self.assertNotIn("applying", output)
        self.assertNotIn("warning", output)  # no migration file changed after it was applied

        self.assertEqual(columns(), cols)
        self.assertEqual(indexes(), idx)
        self.assertEqual(migration_rows(), rows)

    def test_one_row_per_migration_file(self):
        files = migration_files()
        rows = migration_rows()
        self.assertEqual([r[1] for r in rows], files)
        self.assertEqual([int(r[0]) for r in rows], [int(f[:3]) for f in files])
        for r in rows:
            self.assertRegex(r[2], r"^[0-9a-f]{32}$")


if __name__ == "__main__":
    svc_stack.main()

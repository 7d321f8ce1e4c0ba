// check_ddl: which migration statements may copy or lock an existing table
// (svc-admin migrate refuses those on a large table), one row per case.
#include "db/online_ddl.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(online_ddl_test)

namespace {

struct Case {
  const char* statement;
  const char* table;  // "" for a statement that changes no existing table
  bool online;
  const char* reason_part;  // a part of the reason when !online
};

const std::vector<Case> kCases = {
    // Online: INSTANT, or LOCK=NONE (MariaDB fails rather than block).
    {"ALTER TABLE svc_users ADD COLUMN nick VARCHAR(40) NULL, ALGORITHM=INSTANT;", "svc_users", true, ""},
    {"alter table `svc_users` add column nick int null, algorithm = instant;", "svc_users", true, ""},
    {"ALTER TABLE svc_notification_log\n  ADD KEY ix (created_at), ALGORITHM=INPLACE, LOCK=NONE;",
     "svc_notification_log", true, ""},
    {"ALTER TABLE svc.svc_notification_log ADD KEY ix (a), LOCK=NONE, ALGORITHM=NOCOPY;", "svc_notification_log", true,
     ""},
    {"ALTER ONLINE TABLE svc_users ADD KEY ix (a);", "svc_users", true, ""},
    {"ALTER TABLE IF EXISTS svc_users ADD COLUMN x INT NULL, ALGORITHM=INSTANT, LOCK=NONE;", "svc_users", true, ""},
    {"CREATE INDEX ix_a ON svc_users (a) ALGORITHM=INPLACE LOCK=NONE;", "svc_users", true, ""},
    {"CREATE UNIQUE INDEX IF NOT EXISTS ux ON `db`.`svc_users` (a) LOCK=NONE;", "svc_users", true, ""},
    {"DROP INDEX ix_a ON svc_users ALGORITHM=INSTANT;", "svc_users", true, ""},
    // Not a change of an existing table.
    {"CREATE TABLE svc_passkeys (id INT PRIMARY KEY) ENGINE=InnoDB;", "", true, ""},
    {"INSERT INTO svc_sites (name) VALUES ('lock = shared');", "", true, ""},
    {"UPDATE svc_notification_log SET dedup_key = NULL;", "", true, ""},
    // Blocking.
    {"ALTER TABLE svc_users ADD COLUMN nick VARCHAR(40) NULL;", "svc_users", false, "no ALGORITHM=INSTANT"},
    {"ALTER TABLE svc_users ADD KEY ix (a), ALGORITHM=INPLACE;", "svc_users", false, "without LOCK=NONE"},
    {"ALTER TABLE svc_users MODIFY a BIGINT, ALGORITHM=COPY;", "svc_users", false, "ALGORITHM=COPY"},
    {"ALTER TABLE svc_users MODIFY a BIGINT, ALGORITHM=COPY, LOCK=NONE;", "svc_users", false, "ALGORITHM=COPY"},
    {"ALTER TABLE svc_users ADD KEY ix (a), ALGORITHM=INPLACE, LOCK=SHARED;", "svc_users", false, "LOCK=SHARED"},
    {"ALTER TABLE svc_users ADD COLUMN b INT NULL, ALGORITHM=INSTANT, LOCK=EXCLUSIVE;", "svc_users", false,
     "LOCK=EXCLUSIVE"},
    {"ALTER IGNORE TABLE `svc_users` ADD UNIQUE KEY ux (a);", "svc_users", false, "may copy or lock"},
    {"CREATE FULLTEXT INDEX ft ON svc_templates (content);", "svc_templates", false, "no ALGORITHM"},
    {"DROP INDEX IF EXISTS ix_a ON svc_users;", "svc_users", false, "no ALGORITHM"},
    // A clause named only in a comment line does not count; a column whose
    // name starts with "lock" is not the LOCK clause.
    {"-- ALGORITHM=INSTANT\nALTER TABLE svc_users ADD COLUMN locked_until INT NULL;", "svc_users", false,
     "no ALGORITHM"},
};

}  // namespace

BOOST_AUTO_TEST_CASE(classifies_each_statement) {
  for (const auto& c : kCases) {
    BOOST_TEST_CONTEXT(c.statement) {
      const auto got = svc::db::check_ddl(c.statement);
      BOOST_TEST(got.table == c.table);
      BOOST_TEST(got.online == c.online);
      if (c.online) {
        BOOST_TEST(got.reason.empty());
      } else {
        BOOST_TEST(got.reason.find(c.reason_part) != std::string::npos, got.reason);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(online_clauses_removed_leave_the_original_text) {
  BOOST_TEST(svc::db::without_online_clauses("ALTER TABLE t\n  ADD KEY k (a), ALGORITHM=INPLACE, LOCK=NONE;\n") ==
             "ALTER TABLE t\n  ADD KEY k (a);\n");
  BOOST_TEST(svc::db::without_online_clauses("ALTER TABLE t ADD COLUMN c INT NULL,\n  algorithm = instant;") ==
             "ALTER TABLE t ADD COLUMN c INT NULL;");
  BOOST_TEST(svc::db::without_online_clauses("CREATE TABLE t (lock_id INT, locked INT);") ==
             "CREATE TABLE t (lock_id INT, locked INT);");
}

BOOST_AUTO_TEST_SUITE_END()

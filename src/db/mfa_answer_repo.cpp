#include "db/mfa_answer_repo.hpp"

namespace svc::db {

long long MfaAnswerRepo::add(const std::string& table, long long user_id, long long now) {
  // RETURNING: the id in the same round trip (no SELECT LAST_INSERT_ID()).
  return db_
      .take(
          "INSERT INTO svc_mfa_wrong_answers (auth_table, user_id, happened_at) VALUES (?, ?, ?) RETURNING id",
          [&](Params& p) { p.text(table).integer(user_id).integer(now); }, [](RowReader& r) { return r.integer(); })
      .value_or(0);
}

std::vector<long long> MfaAnswerRepo::times_before(const std::string& table, long long user_id, long long id,
                                                   long long after) {
  return db_.rows(
      "SELECT happened_at FROM svc_mfa_wrong_answers"
      " WHERE auth_table = ? AND user_id = ? AND happened_at > ? AND id < ? ORDER BY happened_at, id",
      [&](Params& p) { p.text(table).integer(user_id).integer(after).integer(id); },
      [](RowReader& r) { return r.integer(); });
}

void MfaAnswerRepo::remove(const std::string& table, long long user_id, long long id, long long forget_before) {
  db_.execute_idempotent(
      "DELETE FROM svc_mfa_wrong_answers WHERE auth_table = ? AND user_id = ? AND (id = ? OR happened_at <= ?)",
      [&](Params& p) { p.text(table).integer(user_id).integer(id).integer(forget_before); });
}

}  // namespace svc::db

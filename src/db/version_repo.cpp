#include "db/version_repo.hpp"

namespace svc::db {

void VersionRepo::record(const std::string& table, long long record_id, const std::string& action,
                         const std::string& snapshot) {
  db_.execute("INSERT INTO svc_versions (table_name, record_id, action, snapshot) VALUES (?, ?, ?, ?)",
              [&](Params& p) { p.text(table).integer(record_id).text(action).text(snapshot); });
}

}  // namespace svc::db

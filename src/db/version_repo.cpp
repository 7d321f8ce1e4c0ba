#include "db/version_repo.hpp"

namespace svc::db {

void VersionRepo::record(const std::string& table, long long record_id, const std::string& action,
                         const std::string& snapshot) {
  db_.with("INSERT INTO svc_versions (table_name, record_id, action, snapshot) VALUES (?, ?, ?, ?)",
           [&](sql::PreparedStatement& st) {
             st.setString(1, table);
             st.setInt64(2, record_id);
             st.setString(3, action);
             st.setString(4, snapshot);
             st.executeUpdate();
           });
}

}  // namespace svc::db

#include "db/folder_repo.hpp"

namespace svc::db {

std::vector<long long> FolderRepo::linked_folders(long long user_id, long long site_id) {
  return db_.with(
      "SELECT r.linked FROM svc_related r JOIN " + folders_.quoted() +
          " f ON f.id = r.linked"
          " WHERE r.master_table = 'svc_users' AND r.master_id = ? AND r.linked_table = ? AND f.site_id = ?"
          " ORDER BY r.id",
      [&](sql::PreparedStatement& st) {
        st.setInt64(1, user_id);
        st.setString(2, folders_.str());
        st.setInt64(3, site_id);
        std::vector<long long> out;
        auto rs = query(st);
        while (rs->next()) out.push_back(rs->getInt64(1));
        return out;
      });
}

}  // namespace svc::db

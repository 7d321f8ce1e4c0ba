#include "db/folder_repo.hpp"

namespace svc::db {

std::optional<std::vector<long long>> FolderRepo::linked_folders(long long user_id, long long site_id) {
  // The site row always comes back (with NULL linked when the user has no
  // folders there), so "no such site" and "no folders" stay apart.
  return db_.with(
      "SELECT s.id, x.linked FROM svc_sites s LEFT JOIN ("
      "  SELECT r.id AS link_id, r.linked FROM svc_related r JOIN " + folders_.quoted() +
          " f ON f.id = r.linked"
          "  WHERE r.master_table = 'svc_users' AND r.master_id = ? AND r.linked_table = ? AND f.site_id = ?"
          ") x ON TRUE WHERE s.id = ? AND s.active = 1 ORDER BY x.link_id",
      [&](sql::PreparedStatement& st) -> std::optional<std::vector<long long>> {
        st.setInt64(1, user_id);
        st.setString(2, folders_.str());
        st.setInt64(3, site_id);
        st.setInt64(4, site_id);
        auto rs = query(st);
        if (!rs->next()) return std::nullopt;
        std::vector<long long> out;
        do {
          if (!rs->isNull(2)) out.push_back(rs->getInt64(2));
        } while (rs->next());
        return out;
      });
}

}  // namespace svc::db

#include "db/folder_repo.hpp"

namespace svc::db {

std::vector<long long> FolderRepo::linked_folders(const TableName& users, long long user_id, long long site_id) {
  return db_.rows(
      "SELECT r.linked FROM svc_related r JOIN " + folders_.quoted() +
          " f ON f.id = r.linked"
          " WHERE r.master_table = ? AND r.master_id = ? AND r.linked_table = ? AND f.site_id = ?"
          " ORDER BY r.id",
      [&](Params& p) { p.text(users.str()).integer(user_id).text(folders_.str()).integer(site_id); },
      [](RowReader& r) { return r.integer(); });
}

}  // namespace svc::db

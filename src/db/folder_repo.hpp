#pragma once

#include <optional>
#include <vector>

#include "db/database.hpp"
#include "db/table_name.hpp"

namespace svc::db {

class FolderRepo {
 public:
  FolderRepo(Database& db, TableName folders) : db_(db), folders_(std::move(folders)) {}
  // Ids of the folders (rows of the allowlisted folder table belonging to
  // site_id) linked to the user in svc_related, in link order.
  std::vector<long long> linked_folders(long long user_id, long long site_id);

 private:
  Database& db_;
  TableName folders_;
};

}  // namespace svc::db

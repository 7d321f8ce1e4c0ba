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
  // site_id) linked in svc_related to user `user_id` of auth table `users`
  // (master_table; ids overlap between auth tables), in link order.
  std::vector<long long> linked_folders(const TableName& users, long long user_id, long long site_id);

 private:
  Database& db_;
  TableName folders_;
};

}  // namespace svc::db

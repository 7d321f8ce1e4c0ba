#pragma once
// svc-admin commands for a site's named merge queries (svc_merge_queries):
// SQL the API may run but never change.

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// merge-query set --site N --name NAME --sql-file F
int cmd_merge_query_set(const Args& args, const std::string& config_path);
// merge-query list --site N
int cmd_merge_query_list(const Args& args, const std::string& config_path);

}  // namespace svc::admin

#pragma once
// svc-admin's commands over the site-management services (src/manage/):
// the same validation, change, audit row and webhook event as the
// management API, with the operator as the actor.

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// site admin add --site N --email E --role owner|admin|viewer [--table T]
int cmd_site_admin_add(const Args& args, const std::string& config_path);
// site admin list --site N [--table T]
int cmd_site_admin_list(const Args& args, const std::string& config_path);
// site admin remove --site N --email E [--table T]
int cmd_site_admin_remove(const Args& args, const std::string& config_path);
// user list --site N [--prefix P] [--limit N] [--cursor C] [--table T]
int cmd_user_list(const Args& args, const std::string& config_path);
// user find TEXT --site N [--table T]: the first page of addresses beginning with TEXT
int cmd_user_find(const Args& args, const std::string& config_path);
// user show --site N (--email E | --id ID) [--table T]
int cmd_user_show(const Args& args, const std::string& config_path);
// user disable|enable --site N --email E [--table T]
int cmd_user_disable(const Args& args, const std::string& config_path);
int cmd_user_enable(const Args& args, const std::string& config_path);
// audit --site N [--limit N] [--cursor C]: the site's admin audit, newest first
int cmd_audit_list(const Args& args, const std::string& config_path);

}  // namespace svc::admin

#pragma once

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

int cmd_site_create(const Args& args, const std::string& config_path);
int cmd_site_set(const Args& args, const std::string& config_path);
int cmd_site_show(const Args& args, const std::string& config_path);
int cmd_site_list(const Args& args, const std::string& config_path);
std::string site_options_help();

}  // namespace svc::admin

#pragma once
// svc-admin commands for what the API may never change: the e-mail templates
// of a site (svc_notifications).

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// template set --site N --event E --subject-file F --content-file F
//              [--from ADDR] [--bcc LIST] [--enabled true|false]
int cmd_template_set(const Args& args, const std::string& config_path);
// template enable|disable --site N --event E
int cmd_template_enable(const Args& args, const std::string& config_path);
int cmd_template_disable(const Args& args, const std::string& config_path);
// template priority --site N --event E --priority normal|bulk (account mail
// is always high; see messaging/compose)
int cmd_template_priority(const Args& args, const std::string& config_path);
// template list --site N
int cmd_template_list(const Args& args, const std::string& config_path);

}  // namespace svc::admin

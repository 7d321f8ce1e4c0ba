#pragma once
// svc-admin commands of the Templates capability (manage/templates.hpp): the
// e-mail templates of a site, through the same service as
// /admin/sites/{site}/templates, with the operator as the actor. A command
// names a template by --event E [--locale L], or by --id ID.

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
// template show --site N (--id ID | --event E [--locale L])
int cmd_template_show(const Args& args, const std::string& config_path);
// template preview --site N (--id ID | --event E [--locale L]) [--data JSON]
int cmd_template_preview(const Args& args, const std::string& config_path);
// template versions --site N (--id ID | --event E [--locale L]) [--limit N] [--cursor C]
int cmd_template_versions(const Args& args, const std::string& config_path);
// template rollback --site N (--id ID | --event E [--locale L]) --to-version V
int cmd_template_rollback(const Args& args, const std::string& config_path);
// template test-send --site N (--id ID | --event E [--locale L]) --to ADDR [--data JSON]
int cmd_template_test_send(const Args& args, const std::string& config_path);
// template delete --site N (--id ID | --event E [--locale L])
int cmd_template_delete(const Args& args, const std::string& config_path);

}  // namespace svc::admin

#pragma once

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// sessions list --email E [--site N] [--table T]: the user's open sessions,
// newest first (id, site, created, last seen, IP, methods, user agent).
int cmd_sessions_list(const Args& args, const std::string& config_path);
// sessions revoke --email E [--table T] | --id ID: ends every open session of
// the user, or one session, with an audit row sessions_revoked (reason
// 'operator'); their refresh tokens are refused from then on.
int cmd_sessions_revoke(const Args& args, const std::string& config_path);

}  // namespace svc::admin

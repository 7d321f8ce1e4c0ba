#pragma once

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// mint-user-id --user N [--ttl 1h]: an encrypted, expiring user id for
// /auth/user-email and /auth/user-sms-code.
int cmd_mint_user_id(const Args& args, const std::string& config_path);
// mint-customer-id --customer N [--ttl 30d]: the customerID of /message/sendPush.
int cmd_mint_customer_id(const Args& args, const std::string& config_path);
// vapid-keys --site N [--force]: generates and stores the site's VAPID key
// pair; prints the public key (base64url) for the browser's applicationServerKey.
int cmd_vapid_keys(const Args& args, const std::string& config_path);

}  // namespace svc::admin

#pragma once

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// dkim-keys --site N --selector S [--algorithm rsa-sha256|ed25519-sha256] [--force]:
// makes the site's DKIM key (RSA 2048 by default), stores the private half in
// svc_sites like the VAPID keys, and prints the DNS TXT record to publish at
// S._domainkey.<site domain>. A site that has a key keeps it unless --force
// (the record it printed before would no longer verify); without --force the
// current record is printed again. svc-sender signs from its next pass on.
int cmd_dkim_keys(const Args& args, const std::string& config_path);

}  // namespace svc::admin

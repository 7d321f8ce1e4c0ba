#pragma once
// svc-admin oauth-client …: the OpenID Connect provider's clients (issue 39,
// docs/oidc.md). Secrets are shown once and stored as their SHA-256.

#include <string>

#include "admin/args.hpp"

namespace svc::admin {

// oauth-client create --site N --name NAME --redirect-uri URI [--redirect-uri
// URI …] [--post-logout-redirect-uri URI …] [--public] [--first-party]
// [--id-token-alg RS256|ES256|EdDSA] [--json]: prints client_id,
// client_secret (none for --public) and the site's issuer, one "name value"
// a line, or with --json one object {"client_id","client_secret","issuer"}.
// Its ID tokens are signed with the newest active key of --id-token-alg
// (RS256 by default); a warning on stderr when there is none yet.
int cmd_oauth_client_create(const Args& args, const std::string& config_path);
// oauth-client list [--site N]: one line per client, client_id first.
int cmd_oauth_client_list(const Args& args, const std::string& config_path);
// oauth-client show CLIENT_ID: every setting, one a line.
int cmd_oauth_client_show(const Args& args, const std::string& config_path);
// oauth-client rotate-secret CLIENT_ID [--json]: a new secret at once (the
// old one stops working); prints it.
int cmd_oauth_client_rotate_secret(const Args& args, const std::string& config_path);
// oauth-client delete CLIENT_ID: ends every session granted to the client
// (its refresh tokens stop), then removes it, its codes and consents.
int cmd_oauth_client_delete(const Args& args, const std::string& config_path);

}  // namespace svc::admin

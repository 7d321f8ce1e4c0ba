#pragma once
// svc-admin site provider …: a site's upstream identity providers ("Sign
// in with …", docs/oidc.md), and site set --signup open|closed.

#include <string>

#include "admin/args.hpp"
#include "db/database.hpp"

namespace svc::admin {

// site provider add --site N --name NAME [--type oidc|github] [--issuer URL]
//   [--tenant T] [--api-url URL --authorize-url URL --token-url URL]
//   --client-id ID --client-secret-file FILE [--scopes "…"] [--trust-email]
//   [--team-id T --key-id K] (Apple: the secret file is the .p8 key)
// prints the provider and the callback URI to register at the provider.
int cmd_site_provider_add(const Args& args, const std::string& config_path);
// site provider list --site N: one line per provider, with its callback URI.
int cmd_site_provider_list(const Args& args, const std::string& config_path);
// site provider remove --site N --name NAME: its identities stay linked
// (the provider may come back); no one signs in through it meanwhile.
int cmd_site_provider_remove(const Args& args, const std::string& config_path);

// --signup open|closed of site create / site set, and its line in site show.
void apply_signup(const Args& args, db::Database& db, long long site_id);
void print_signup(db::Database& db, long long site_id);

}  // namespace svc::admin

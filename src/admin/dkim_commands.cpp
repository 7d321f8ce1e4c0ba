#include "admin/dkim_commands.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "admin/command_env.hpp"
#include "crypto/dkim_keys.hpp"
#include "db/site_mail_repo.hpp"

namespace svc::admin {
namespace {

// One DNS label: what a selector may be (RFC 6376 3.1 allows dotted
// sub-labels; one label is what operators use and what we check).
bool valid_selector(const std::string& s) {
  return !s.empty() && s.size() <= 63 && s.front() != '-' && s.back() != '-' &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '-'; });
}

// Zone-file form: a TXT string holds at most 255 bytes, so a 2048-bit RSA
// record is split into several quoted strings (resolvers join them).
void print_record(const std::string& selector, const std::string& domain, const std::string& txt) {
  std::printf("%s._domainkey.%s. IN TXT", selector.c_str(), domain.c_str());
  for (std::size_t i = 0; i < txt.size(); i += 255) std::printf(" \"%s\"", txt.substr(i, 255).c_str());
  std::printf("\n");
}

}  // namespace

int cmd_dkim_keys(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "selector", "algorithm", "force"});
  const std::string selector = args.required("selector");
  if (!valid_selector(selector)) throw UsageError("--selector must be one DNS label (letters, digits, '-')");
  const std::string algorithm = args.get("algorithm").value_or("rsa-sha256");
  if (algorithm != "rsa-sha256" && algorithm != "ed25519-sha256") {
    throw UsageError("--algorithm must be rsa-sha256 or ed25519-sha256");
  }
  CommandEnv env(config_path);
  const db::Site site = env.site(args.required_integer("site"));
  if (site.domain.empty()) throw UsageError("site " + std::to_string(site.id) + " has no domain (site set --domain D)");
  db::SiteMailRepo repo(env.db);
  const auto current = repo.find(site.id);
  if (current && current->dkim && !args.flag("force")) {
    std::fprintf(stderr,
                 "svc-admin: site %lld already has a DKIM key (selector %s; use --force to replace it, then"
                 " publish the new record before the old one is removed)\n",
                 site.id, current->dkim->selector.c_str());
    print_record(current->dkim->selector, site.domain, crypto::dkim_txt_record(current->dkim->private_pem));
    return 0;
  }
  const auto keys = crypto::generate_dkim_keys(algorithm);
  repo.set_dkim(site.id, db::DkimKey{selector, algorithm, keys.private_pem});
  print_record(selector, site.domain, keys.txt_record);
  return 0;
}

}  // namespace svc::admin

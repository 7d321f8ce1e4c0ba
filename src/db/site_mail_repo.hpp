#pragma once
// A site's mail delivery settings (svc_sites columns of migration 005): the
// hourly quota the outbox claim enforces and the DKIM key the sender signs
// with. Kept apart from SiteRepo because only svc-admin and svc-sender use
// them; the API's site cache never loads a private key it does not need.

#include <optional>
#include <string>

#include "db/database.hpp"

namespace svc::db {

struct DkimKey {
  std::string selector;     // DNS label: <selector>._domainkey.<domain>
  std::string algorithm;    // "rsa-sha256" or "ed25519-sha256"
  std::string private_pem;  // PKCS#8 PEM
};

struct SiteMail {
  long long site_id = 0;
  std::string domain;                      // svc_sites.domain, the DKIM d=
  std::optional<long long> mail_per_hour;  // nullopt = unlimited
  std::optional<DkimKey> dkim;             // nullopt = not signed
};

class SiteMailRepo {
 public:
  explicit SiteMailRepo(Database& db) : db_(db) {}
  // nullopt when the site does not exist.
  std::optional<SiteMail> find(long long site_id);
  // nullopt = unlimited.
  void set_mail_per_hour(long long site_id, std::optional<long long> per_hour);
  void set_dkim(long long site_id, const DkimKey& key);

 private:
  Database& db_;
};

}  // namespace svc::db

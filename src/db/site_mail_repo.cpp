#include "db/site_mail_repo.hpp"

namespace svc::db {

std::optional<SiteMail> SiteMailRepo::find(long long site_id) {
  return db_.one(
      "SELECT id, domain, COALESCE(mail_per_hour, -1), COALESCE(dkim_selector, ''), COALESCE(dkim_algorithm, ''),"
      " COALESCE(dkim_private_key, '') FROM svc_sites WHERE id = ?",
      [&](Params& p) { p.integer(site_id); },
      [](RowReader& r) {
        SiteMail m;
        r.read(m.site_id, m.domain);
        const long long per_hour = r.integer();
        if (per_hour >= 0) m.mail_per_hour = per_hour;
        DkimKey k;
        r.read(k.selector, k.algorithm, k.private_pem);
        if (!k.selector.empty() && !k.private_pem.empty()) m.dkim = std::move(k);
        return m;
      });
}

void SiteMailRepo::set_mail_per_hour(long long site_id, std::optional<long long> per_hour) {
  db_.execute("UPDATE svc_sites SET mail_per_hour = ? WHERE id = ?", [&](Params& p) {
    if (per_hour) {
      p.integer(*per_hour);
    } else {
      p.null();
    }
    p.integer(site_id);
  });
}

void SiteMailRepo::set_dkim(long long site_id, const DkimKey& key) {
  db_.execute("UPDATE svc_sites SET dkim_selector = ?, dkim_algorithm = ?, dkim_private_key = ? WHERE id = ?",
              [&](Params& p) { p.text(key.selector).text(key.algorithm).text(key.private_pem).integer(site_id); });
}

}  // namespace svc::db

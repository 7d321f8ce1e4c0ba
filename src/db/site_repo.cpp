#include "db/site_repo.hpp"

#include "core/text.hpp"

namespace svc::db {
namespace {

constexpr const char* kColumns =
    "id, name, domain, reset_url, allowed_redirect_hosts, disable_email, email_from, email_cc, email_bcc,"
    " vapid_public_key, vapid_private_key, vapid_subject, api_key_hash, allow_sql_merge, active, audience, "
    "verify_email, new_device_mail, min_password_score, user_pool";

std::vector<std::string> split_hosts(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  for (char c : s + ",") {
    if (c == ',' || c == ' ' || c == '\n') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else {
      item.push_back(c);
    }
  }
  return out;
}

// The reset_url column: URLs separated by spaces (a URL never holds one).
std::vector<std::string> split_urls(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find_first_of(" \n", start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// In the order of kColumns.
Site read_site(RowReader& r) {
  Site s;
  r.read(s.id, s.name, s.domain);
  s.reset_urls = split_urls(r.text());
  s.allowed_redirect_hosts = split_hosts(r.text());
  r.read(s.disable_email, s.email_from, s.email_cc, s.email_bcc, s.vapid_public_key, s.vapid_private_key,
         s.vapid_subject, s.api_key_hash, s.allow_sql_merge, s.active, s.audience, s.verify_email, s.new_device_mail,
         s.min_password_score, s.user_pool);
  return s;
}

// kInsert and kUpdate bind the same values: the 14 columns both write, the
// user pool (an INSERT only: set_user_pool changes it), then the id (an
// INSERT's NULL id lets the database pick one; an UPDATE names an existing
// site, id > 0).
constexpr const char* kInsert =
    "INSERT INTO svc_sites (name, domain, reset_url, allowed_redirect_hosts, disable_email, email_from, email_cc,"
    " email_bcc, vapid_public_key, vapid_private_key, vapid_subject, api_key_hash, allow_sql_merge, active,"
    " user_pool, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
constexpr const char* kUpdate =
    "UPDATE svc_sites SET name = ?, domain = ?, reset_url = ?, allowed_redirect_hosts = ?, disable_email = ?,"
    " email_from = ?, email_cc = ?, email_bcc = ?, vapid_public_key = ?, vapid_private_key = ?, vapid_subject = ?,"
    " api_key_hash = ?, allow_sql_merge = ?, active = ? WHERE id = ?";

void write_site(Database& db, const char* sql, const Site& s, bool insert) {
  db.execute(sql, [&](Params& p) {
    p.text(s.name).text(s.domain).text(core::join(s.reset_urls, " ")).text(core::join(s.allowed_redirect_hosts, ","));
    p.flag(s.disable_email).text(s.email_from).id_or_null(s.email_cc).id_or_null(s.email_bcc);
    p.text_or_null(s.vapid_public_key).text_or_null(s.vapid_private_key).text_or_null(s.vapid_subject);
    p.text_or_null(s.api_key_hash).flag(s.allow_sql_merge).flag(s.active);
    if (insert) p.integer(s.user_pool);
    p.id_or_null(s.id);
  });
}

}  // namespace

std::optional<Site> SiteRepo::find(long long id) {
  return db_.one(
      std::string("SELECT ") + kColumns + " FROM svc_sites WHERE id = ?", [&](Params& p) { p.integer(id); }, read_site);
}

std::vector<Site> SiteRepo::list() {
  return db_.rows(std::string("SELECT ") + kColumns + " FROM svc_sites ORDER BY id", kNoParams, read_site);
}

long long SiteRepo::create(const Site& site) {
  // An explicit id (site.id > 0) lets operators keep appIDs they already use.
  write_site(db_, kInsert, site, true);
  return site.id > 0 ? site.id : db_.last_insert_id();
}

void SiteRepo::update_settings(const Site& s) {
  db_.execute(
      "UPDATE svc_sites SET name = ?, reset_url = ?, disable_email = ?, email_from = ?, email_cc = ?, email_bcc = ?"
      " WHERE id = ?",
      [&](Params& p) {
        p.text(s.name).text(core::join(s.reset_urls, " ")).flag(s.disable_email).text(s.email_from);
        p.id_or_null(s.email_cc).id_or_null(s.email_bcc).integer(s.id);
      });
}

void SiteRepo::set_api_key_hash(long long id, const std::string& hash) {
  db_.execute("UPDATE svc_sites SET api_key_hash = ? WHERE id = ?",
              [&](Params& p) { p.text_or_null(hash).integer(id); });
}

void SiteRepo::update(const Site& site) { write_site(db_, kUpdate, site, false); }

void SiteRepo::set_audience(long long id, const std::string& audience) {
  db_.execute("UPDATE svc_sites SET audience = ? WHERE id = ?", [&](Params& p) { p.text(audience).integer(id); });
}

void SiteRepo::set_verify_email(long long id, bool verify) {
  db_.execute("UPDATE svc_sites SET verify_email = ? WHERE id = ?", [&](Params& p) { p.flag(verify).integer(id); });
}

void SiteRepo::set_new_device_mail(long long id, bool on) {
  db_.execute("UPDATE svc_sites SET new_device_mail = ? WHERE id = ?", [&](Params& p) { p.flag(on).integer(id); });
}

void SiteRepo::set_min_password_score(long long id, int score) {
  db_.execute("UPDATE svc_sites SET min_password_score = ? WHERE id = ?",
              [&](Params& p) { p.integer(score).integer(id); });
}

long long SiteRepo::create_pool() {
  db_.execute("INSERT INTO svc_user_pools () VALUES ()", kNoParams);
  return db_.last_insert_id();
}

void SiteRepo::set_user_pool(long long id, long long pool) {
  db_.execute("UPDATE svc_sites SET user_pool = ? WHERE id = ?", [&](Params& p) { p.integer(pool).integer(id); });
}

std::vector<long long> SiteRepo::sites_in_pool(long long pool) {
  return db_.rows(
      "SELECT id FROM svc_sites WHERE user_pool = ? ORDER BY id", [&](Params& p) { p.integer(pool); },
      [](RowReader& r) { return r.integer(); });
}

bool SiteRepo::has_sessions(long long id) {
  return db_.one(
                "SELECT EXISTS(SELECT 1 FROM svc_sessions WHERE site_id = ?)", [&](Params& p) { p.integer(id); },
                [](RowReader& r) { return r.integer(); })
             .value_or(0) != 0;
}

}  // namespace svc::db

#include "db/site_repo.hpp"

namespace svc::db {
namespace {

constexpr const char* kColumns =
    "id, name, domain, reset_url, allowed_redirect_hosts, disable_email, email_from, email_cc, email_bcc,"
    " vapid_public_key, vapid_private_key, vapid_subject, api_key_hash, allow_sql_merge, active";

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

std::string join_hosts(const std::vector<std::string>& hosts) {
  std::string out;
  for (const auto& h : hosts) out += (out.empty() ? "" : ",") + h;
  return out;
}

Site read_site(sql::ResultSet& rs) {
  // In the order of kColumns.
  RowReader r(rs);
  Site s;
  s.id = r.integer();
  s.name = r.text();
  s.domain = r.text();
  s.reset_url = r.text();
  s.allowed_redirect_hosts = split_hosts(r.text());
  s.disable_email = r.flag();
  s.email_from = r.text();
  s.email_cc = r.integer();
  s.email_bcc = r.integer();
  s.vapid_public_key = r.text();
  s.vapid_private_key = r.text();
  s.vapid_subject = r.text();
  s.api_key_hash = r.text();
  s.allow_sql_merge = r.flag();
  s.active = r.flag();
  return s;
}

void bind_site(sql::PreparedStatement& st, const Site& s) {
  st.setString(1, s.name);
  st.setString(2, s.domain);
  st.setString(3, s.reset_url);
  st.setString(4, join_hosts(s.allowed_redirect_hosts));
  st.setInt(5, s.disable_email ? 1 : 0);
  st.setString(6, s.email_from);
  if (s.email_cc > 0) st.setInt64(7, s.email_cc); else st.setNull(7, 0);
  if (s.email_bcc > 0) st.setInt64(8, s.email_bcc); else st.setNull(8, 0);
  if (s.vapid_public_key.empty()) st.setNull(9, 0); else st.setString(9, s.vapid_public_key);
  if (s.vapid_private_key.empty()) st.setNull(10, 0); else st.setString(10, s.vapid_private_key);
  if (s.vapid_subject.empty()) st.setNull(11, 0); else st.setString(11, s.vapid_subject);
  if (s.api_key_hash.empty()) st.setNull(12, 0); else st.setString(12, s.api_key_hash);
  st.setInt(13, s.allow_sql_merge ? 1 : 0);
  st.setInt(14, s.active ? 1 : 0);
}

}  // namespace

std::optional<Site> SiteRepo::find(long long id) {
  return db_.with(std::string("SELECT ") + kColumns + " FROM svc_sites WHERE id = ?",
                  [&](sql::PreparedStatement& st) -> std::optional<Site> {
                    st.setInt64(1, id);
                    auto rs = query(st);
                    if (!rs->next()) return std::nullopt;
                    return read_site(*rs);
                  });
}

std::vector<Site> SiteRepo::list() {
  return db_.with(std::string("SELECT ") + kColumns + " FROM svc_sites ORDER BY id", [&](sql::PreparedStatement& st) {
    std::vector<Site> out;
    auto rs = query(st);
    while (rs->next()) out.push_back(read_site(*rs));
    return out;
  });
}

long long SiteRepo::create(const Site& site) {
  // An explicit id (site.id > 0) lets operators keep appIDs they already use.
  std::string sql =
      "INSERT INTO svc_sites (name, domain, reset_url, allowed_redirect_hosts, disable_email, email_from, email_cc,"
      " email_bcc, vapid_public_key, vapid_private_key, vapid_subject, api_key_hash, allow_sql_merge, active, id)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  db_.with(sql, [&](sql::PreparedStatement& st) {
    bind_site(st, site);
    if (site.id > 0) st.setInt64(15, site.id); else st.setNull(15, 0);
    st.executeUpdate();
  });
  return site.id > 0 ? site.id : db_.last_insert_id();
}

void SiteRepo::update(const Site& site) {
  db_.with(
      "UPDATE svc_sites SET name = ?, domain = ?, reset_url = ?, allowed_redirect_hosts = ?, disable_email = ?,"
      " email_from = ?, email_cc = ?, email_bcc = ?, vapid_public_key = ?, vapid_private_key = ?, vapid_subject = ?,"
      " api_key_hash = ?, allow_sql_merge = ?, active = ? WHERE id = ?",
      [&](sql::PreparedStatement& st) {
        bind_site(st, site);
        st.setInt64(15, site.id);
        st.executeUpdate();
      });
}

}  // namespace svc::db

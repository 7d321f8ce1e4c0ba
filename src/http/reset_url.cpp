#include "http/reset_url.hpp"

#include <algorithm>
#include <cctype>

#include "config/config.hpp"
#include "core/text.hpp"

namespace svc::http {
namespace {

bool is_link_byte(unsigned char c) { return c > 0x20 && c < 0x7f && c != '"' && c != '<' && c != '>' && c != '\\'; }

bool is_host_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.'; }

std::optional<int> parse_port(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  int port = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    port = port * 10 + (c - '0');
  }
  if (port < 1 || port > 65535) return std::nullopt;
  return port;
}

// "host", "host:port", "[v6]" or "[v6]:port" into host and port.
bool parse_authority(std::string_view authority, ResetUrl& out) {
  std::string_view host = authority;
  std::string_view port;
  if (authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos || close < 3) return false;
    host = authority.substr(0, close + 1);
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return false;
    if (!rest.empty()) port = rest.substr(1);
    if (rest.size() == 1) return false;  // "[::1]:"
    for (char c : host.substr(1, host.size() - 2)) {
      if (std::isxdigit(static_cast<unsigned char>(c)) == 0 && c != ':' && c != '.') return false;
    }
  } else {
    const size_t colon = authority.find(':');
    if (colon != std::string_view::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
      if (port.empty()) return false;  // "host:"
    }
    if (host.empty() || !std::all_of(host.begin(), host.end(), is_host_char)) return false;
  }
  out.host = core::ascii_lower(host);
  if (port.empty()) {
    out.port = out.scheme == "https" ? 443 : 80;
    return true;
  }
  auto number = parse_port(port);
  if (!number) return false;
  out.port = *number;
  return true;
}

// A segment a server may resolve to "." or "..": dots only once "%2e" is
// decoded, up to a ';' (path parameters, which some servers strip).
bool is_dot_segment(std::string_view segment) {
  segment = segment.substr(0, segment.find(';'));
  const std::string lower = core::ascii_lower(segment);
  std::string decoded;
  for (size_t i = 0; i < lower.size(); ++i) {
    if (lower.compare(i, 3, "%2e") == 0) {
      decoded.push_back('.');
      i += 2;
    } else {
      decoded.push_back(lower[i]);
    }
  }
  return decoded == "." || decoded == "..";
}

bool is_plain_path(std::string_view path) {
  const std::string lower = core::ascii_lower(path);
  if (lower.find("%2f") != std::string::npos || lower.find("%5c") != std::string::npos) return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (is_dot_segment(path.substr(start, slash - start))) return false;
    start = slash + 1;
  }
  return true;
}

}  // namespace

std::optional<ResetUrl> parse_reset_url(std::string_view url) {
  if (!std::all_of(url.begin(), url.end(), [](char c) { return is_link_byte(static_cast<unsigned char>(c)); })) {
    return std::nullopt;
  }
  ResetUrl out;
  const std::string lower = core::ascii_lower(url.substr(0, 8));
  size_t start = 0;
  if (lower.rfind("https://", 0) == 0) {
    out.scheme = "https";
    start = 8;
  } else if (lower.rfind("http://", 0) == 0) {
    out.scheme = "http";
    start = 7;
  } else {
    return std::nullopt;
  }
  const size_t end = url.find_first_of("/?#", start);
  const std::string_view authority = url.substr(start, end == std::string_view::npos ? url.npos : end - start);
  if (authority.empty() || authority.find('@') != std::string_view::npos) return std::nullopt;
  if (!parse_authority(authority, out)) return std::nullopt;
  std::string_view path;
  if (end != std::string_view::npos && url[end] == '/') {
    path = url.substr(end);
    path = path.substr(0, path.find_first_of("?#"));
  }
  if (!is_plain_path(path)) return std::nullopt;
  out.path = path.empty() ? "/" : std::string(path);
  return out;
}

bool reset_transport_ok(const ResetUrl& url) { return url.scheme == "https" || config::is_loopback_host(url.host); }

bool reset_url_within(const ResetUrl& url, const ResetUrl& prefix) {
  if (url.scheme != prefix.scheme || url.host != prefix.host || url.port != prefix.port) return false;
  const std::string& p = prefix.path;
  if (url.path.compare(0, p.size(), p) != 0) return false;
  return url.path.size() == p.size() || p.back() == '/' || url.path[p.size()] == '/';
}

bool reset_url_allowed(std::string_view url, const std::vector<std::string>& prefixes) {
  const auto parsed = parse_reset_url(url);
  if (!parsed || !reset_transport_ok(*parsed)) return false;
  return std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& prefix) {
    const auto allowed = parse_reset_url(prefix);
    return allowed && reset_url_within(*parsed, *allowed);
  });
}

std::string ready_page_link(std::string_view page, long long site_id, std::string_view token) {
  std::string link(page);
  if (site_id > 0) link += "?site=" + std::to_string(site_id);
  link += "#token=";
  link += token;
  return link;
}

}  // namespace svc::http

#include "oidc/params.hpp"

#include "core/text.hpp"

namespace svc::oidc {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> Params::get(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> form_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] == '%') {
      const int hi = i + 2 < text.size() ? hex_digit(text[i + 1]) : -1;
      const int lo = i + 2 < text.size() ? hex_digit(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  if (out.find('\0') != std::string::npos || !core::is_valid_utf8(out)) return std::nullopt;
  return out;
}

Params parse_params(std::string_view encoded) {
  Params out;
  while (!encoded.empty()) {
    const size_t amp = encoded.find('&');
    const std::string_view pair = encoded.substr(0, amp);
    encoded = amp == std::string_view::npos ? std::string_view() : encoded.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const auto name = form_decode(pair.substr(0, eq));
    const auto value = eq == std::string_view::npos ? std::optional<std::string>("") : form_decode(pair.substr(eq + 1));
    if (!name || !value) {
      if (out.malformed.empty()) out.malformed = name ? *name : "parameter name";
      continue;
    }
    if (value->empty()) continue;  // RFC 6749 3.1: as if omitted
    if (!out.values.emplace(*name, *value).second && out.repeated.empty()) out.repeated = *name;
  }
  return out;
}

std::string append_query(const std::string& uri, const std::map<std::string, std::string>& params) {
  std::string out = uri;
  char sep = uri.find('?') == std::string::npos ? '?' : '&';
  for (const auto& [name, value] : params) {
    out += sep + core::percent_encode(name) + "=" + core::percent_encode(value);
    sep = '&';
  }
  return out;
}

}  // namespace svc::oidc

#include "http/validate.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace svc::http {

const rapidjson::Value* Fields::member(const char* name) const {
  if (!body_.IsObject()) return nullptr;
  auto it = body_.FindMember(name);
  if (it == body_.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

void Fields::add(std::string field, std::string message) { errors_.push_back({std::move(field), std::move(message)}); }

bool Fields::has_error(const std::string& field) const {
  return std::any_of(errors_.begin(), errors_.end(), [&](const FieldError& e) { return e.field == field; });
}

std::optional<std::string> Fields::required_string(const char* name, size_t max_bytes) {
  const auto* v = member(name);
  if (!v) {
    add(name, std::string(name) + " is required");
    return std::nullopt;
  }
  auto s = optional_string(name, max_bytes);
  if (s && s->empty()) {
    add(name, std::string(name) + " is required");
    return std::nullopt;
  }
  return s;
}

std::optional<std::string> Fields::optional_string(const char* name, size_t max_bytes) {
  const auto* v = member(name);
  if (!v) return std::nullopt;
  if (!v->IsString()) {
    add(name, std::string(name) + " must be a string");
    return std::nullopt;
  }
  if (v->GetStringLength() > max_bytes) {
    add(name, std::string(name) + " is too long");
    return std::nullopt;
  }
  return std::string(v->GetString(), v->GetStringLength());
}

std::optional<long long> Fields::id(const char* name, bool required) {
  const auto* v = member(name);
  if (!v) {
    if (required) add(name, std::string(name) + " is required");
    return std::nullopt;
  }
  long long n = 0;
  bool ok = false;
  if (v->IsInt64()) {
    n = v->GetInt64();
    ok = true;
  } else if (v->IsString() && v->GetStringLength() > 0 && v->GetStringLength() <= 19) {
    std::string s(v->GetString(), v->GetStringLength());
    ok = std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (ok) {
      errno = 0;
      n = std::strtoll(s.c_str(), nullptr, 10);
      ok = errno == 0;
    }
  }
  if (!ok || n <= 0) {
    add(name, std::string(name) + " must be a positive integer");
    return std::nullopt;
  }
  return n;
}

std::optional<long long> Fields::required_id(const char* name) { return id(name, true); }
std::optional<long long> Fields::optional_id(const char* name) { return id(name, false); }

const rapidjson::Value* Fields::optional_object(const char* name) {
  const auto* v = member(name);
  if (!v) return nullptr;
  if (!v->IsObject()) {
    add(name, std::string(name) + " must be an object");
    return nullptr;
  }
  return v;
}

const rapidjson::Value* Fields::required_object(const char* name) {
  if (!member(name)) {
    add(name, std::string(name) + " is required");
    return nullptr;
  }
  return optional_object(name);
}

bool is_valid_email(std::string_view address) {
  if (address.empty() || address.size() > 254) return false;
  const std::size_t at = address.find('@');
  if (at == std::string_view::npos || address.find('@', at + 1) != std::string_view::npos) {
    return false;
  }
  const std::string_view local = address.substr(0, at);
  const std::string_view domain = address.substr(at + 1);
  if (local.empty() || local.size() > 64 || domain.empty()) return false;

  static constexpr std::string_view kLocalSpecials = "!#$%&'*+/=?^_`{|}~-.";
  for (char c : local) {
    const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && kLocalSpecials.find(c) == std::string_view::npos) return false;
  }
  if (local.front() == '.' || local.back() == '.' || local.find("..") != std::string_view::npos) {
    return false;
  }

  std::size_t labels = 0;
  std::string_view last;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = domain.find('.', start);
    const std::string_view label =
        domain.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (char c : label) {
      const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
      if (!ok) return false;
    }
    ++labels;
    last = label;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  const bool numeric_tld = std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; });
  return labels >= 2 && !numeric_tld;
}

}  // namespace svc::http

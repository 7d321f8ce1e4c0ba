#include "config/reader.hpp"

#include "crypto/encoding.hpp"

namespace svc::config {

const std::string* Reader::raw(const std::string& key) {
  seen_.insert(key);
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

void Reader::str(const std::string& key, std::string& out) {
  if (auto v = raw(key)) out = *v;
}

void Reader::required(const std::string& key, std::string& out) {
  auto v = raw(key);
  if (!v || v->empty()) throw ConfigError("missing required configuration key " + label(key));
  out = *v;
}

void Reader::boolean(const std::string& key, bool& out) {
  auto v = raw(key);
  if (!v) return;
  if (*v == "true" || *v == "yes" || *v == "on" || *v == "1")
    out = true;
  else if (*v == "false" || *v == "no" || *v == "off" || *v == "0")
    out = false;
  else
    throw ConfigError("configuration key " + label(key) + ": expected true or false, got '" + *v + "'");
}

void Reader::list(const std::string& key, std::vector<std::string>& out) {
  auto v = raw(key);
  if (!v) return;
  out.clear();
  size_t start = 0;
  while (start <= v->size()) {
    size_t comma = v->find(',', start);
    if (comma == std::string::npos) comma = v->size();
    std::string item = v->substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
}

void Reader::one_of(const std::string& key, std::string& out, std::initializer_list<const char*> allowed) {
  str(key, out);
  for (const char* a : allowed) {
    if (out == a) return;
  }
  std::string names;
  for (const char* a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
  throw ConfigError("configuration key " + label(key) + ": expected one of " + names + ", got '" + out + "'");
}

std::string Reader::secret(const std::string& key, size_t min_bytes, size_t max_bytes, bool needed) {
  auto v = raw(key);
  if (!v || v->empty()) {
    if (needed)
      throw ConfigError("missing required configuration key " + label(key) + " (svc-admin keygen prints one)");
    return "";
  }
  auto bytes = crypto::base64url_decode(*v);
  if (!bytes || bytes->size() < min_bytes || bytes->size() > max_bytes) {
    throw ConfigError("configuration key " + label(key) + ": expected base64url of " + std::to_string(min_bytes) +
                      (min_bytes == max_bytes ? "" : "+") + " bytes");
  }
  return *bytes;
}

void Reader::reject_unknown() const {
  for (const auto& [key, value] : values_) {
    if (!seen_.count(key)) throw ConfigError("unknown configuration key " + label(key));
  }
}

std::string Reader::label(const std::string& key) {
  size_t dot = key.rfind('.');
  return "[" + key.substr(0, dot) + "] " + key.substr(dot + 1);
}

}  // namespace svc::config

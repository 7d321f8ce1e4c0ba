#pragma once
// The one typed reader of the INI map that every section's read_* function
// (server_config, db_config, ...) goes through. It records each key it is
// asked for, found or not, so reject_unknown() can name any key no section
// read. Every failure throws ConfigError whose message names the key as
// "[section] key"; the exact wording is part of the contract (tests and
// operators match on it).
//
// Not thread-safe; one Reader serves one parse_config call. The IniValues
// must outlive it.

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include "config/ini.hpp"

namespace svc::config {

class Reader {
 public:
  explicit Reader(const IniValues& values) : values_(values) {}

  // The value of `key` ("section.key"), nullptr when unset; marks it read.
  const std::string* raw(const std::string& key);
  // Each of these leaves `out` at its default when the key is unset.
  void str(const std::string& key, std::string& out);
  // Throws when the key is unset or empty.
  void required(const std::string& key, std::string& out);
  // Decimal, 0x hex or 0 octal (strtoll base 0), within [min, max].
  template <class Int>
  void integer(const std::string& key, Int& out, long long min, long long max) {
    auto v = raw(key);
    if (!v) return;
    errno = 0;
    char* end = nullptr;
    long long n = std::strtoll(v->c_str(), &end, 0);
    if (v->empty() || *end != '\0' || errno != 0 || n < min || n > max) {
      throw ConfigError("configuration key " + label(key) + ": expected an integer in [" + std::to_string(min) + ", " +
                        std::to_string(max) + "], got '" + *v + "'");
    }
    out = static_cast<Int>(n);
  }
  // true/yes/on/1 or false/no/off/0.
  void boolean(const std::string& key, bool& out);
  // Comma-separated, items trimmed of blanks, empty items dropped; a set key
  // replaces `out` (so "key =" empties it).
  void list(const std::string& key, std::vector<std::string>& out);
  // `out` (its default when unset) must be one of `allowed`.
  void one_of(const std::string& key, std::string& out, std::initializer_list<const char*> allowed);
  // A base64url-encoded secret of min_bytes..max_bytes decoded bytes; "" when
  // unset or empty and not `needed`.
  std::string secret(const std::string& key, size_t min_bytes, size_t max_bytes, bool needed);
  // Throws for the first (in key order) key of the file nothing read.
  void reject_unknown() const;
  // "database.merge.user" -> "[database.merge] user".
  static std::string label(const std::string& key);

 private:
  const IniValues& values_;
  std::set<std::string> seen_;
};

}  // namespace svc::config

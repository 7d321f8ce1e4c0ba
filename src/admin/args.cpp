#include "admin/args.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace svc::admin {

Args::Args(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      words_.push_back(a);
      continue;
    }
    std::string name = a.substr(2);
    std::string value = "true";
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
      value = argv[++i];
    }
    if (name == "config") continue;
    options_[name] = value;
    given_.emplace_back(name, value);
  }
}

std::vector<std::string> Args::all(const std::string& name) const {
  std::vector<std::string> out;
  for (const auto& [n, v] : given_) {
    if (n == name) out.push_back(v);
  }
  return out;
}

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = options_.find(name);
  if (it == options_.end()) return std::nullopt;
  return it->second;
}

std::string Args::required(const std::string& name) const {
  auto v = get(name);
  if (!v) throw UsageError("missing --" + name);
  return *v;
}

long long Args::integer(const std::string& name, long long fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  char* end = nullptr;
  long long n = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end) throw UsageError("--" + name + " expects an integer, got '" + *v + "'");
  return n;
}

long long Args::required_integer(const std::string& name) const {
  required(name);
  return integer(name, 0);
}

void Args::allow_only(const std::vector<std::string>& known) const {
  for (const auto& [name, value] : options_) {
    if (std::find(known.begin(), known.end(), name) == known.end()) throw UsageError("unknown option --" + name);
  }
}

long long parse_duration(const std::string& text) {
  if (text.empty()) throw UsageError("empty duration");
  char* end = nullptr;
  long long n = std::strtoll(text.c_str(), &end, 10);
  std::string unit = end;
  long long mult = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : unit == "d" ? 86400 : -1;
  if (mult < 0 || n <= 0 || end == text.c_str()) throw UsageError("bad duration '" + text + "' (use 90s, 15m, 1h, 7d)");
  return n * mult;
}

bool parse_bool(const std::string& option, const std::string& value) {
  if (value == "true" || value == "yes" || value == "1" || value == "on") return true;
  if (value == "false" || value == "no" || value == "0" || value == "off") return false;
  throw UsageError("--" + option + " expects true or false, got '" + value + "'");
}

void check_name(const std::string& option, const std::string& value) {
  bool ok = !value.empty() && value.size() <= 190;
  for (char c : value) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == ':');
  }
  if (!ok) throw UsageError("--" + option + " must be 1-190 characters of A-Z a-z 0-9 - _ . :, got '" + value + "'");
}

std::string read_text_file(const std::string& option, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read --" + option + " " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace svc::admin

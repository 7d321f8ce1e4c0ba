#pragma once
// svc-admin's command line: the words and --options, and the checks on option
// values that more than one command uses.

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace svc::admin {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Command-line words and --options of svc-admin: `--name value`,
// `--name=value`, or a bare `--flag` (value "true" when the next word is
// another option or absent). --config is consumed elsewhere.
class Args {
 public:
  Args(int argc, char** argv, int first);
  const std::vector<std::string>& words() const { return words_; }
  std::optional<std::string> get(const std::string& name) const;
  // Every value of an option given several times, in order (get() has the last).
  std::vector<std::string> all(const std::string& name) const;
  std::string required(const std::string& name) const;
  long long integer(const std::string& name, long long fallback) const;
  long long required_integer(const std::string& name) const;
  bool flag(const std::string& name) const { return options_.count(name) > 0; }
  // UsageError naming the first option not in `known`.
  void allow_only(const std::vector<std::string>& known) const;

 private:
  std::vector<std::string> words_;
  std::map<std::string, std::string> options_;
  std::vector<std::pair<std::string, std::string>> given_;  // every option, in order
};

// "90", "90s", "15m", "1h", "7d" → seconds; UsageError otherwise.
long long parse_duration(const std::string& text);

// true/yes/1/on or false/no/0/off; UsageError "--OPTION expects true or
// false, got 'VALUE'" otherwise.
bool parse_bool(const std::string& option, const std::string& value);

// An event or merge-query name, which a client writes in a request: 1-190
// characters of A-Z a-z 0-9 - _ . : (UsageError otherwise).
void check_name(const std::string& option, const std::string& value);

// The whole file an option names, as bytes; std::runtime_error "cannot read
// --OPTION PATH" when it cannot be read.
std::string read_text_file(const std::string& option, const std::string& path);

}  // namespace svc::admin

#include "admin/password_commands.hpp"

#include <cstdio>
#include <ctime>

#include "config/config.hpp"
#include "crypto/breached_import.hpp"

namespace svc::admin {

int cmd_passwords_import_breached(const Args& args, const std::string& config_path) {
  args.allow_only({"min-count"});
  const auto& words = args.words();
  if (words.size() != 3) {
    throw UsageError("passwords import-breached takes one file: svc-admin passwords import-breached FILE");
  }
  const long long min_count = args.integer("min-count", 1);
  if (min_count < 1) throw UsageError("--min-count must be 1 or more");
  const config::Config config = config::load_config(config_path);
  const std::string& target = config.auth.breached_list;
  if (target.empty()) throw UsageError("[auth] breached_list is not set in " + config_path);

  crypto::BreachedImportOptions options;
  options.min_count = static_cast<uint64_t>(min_count);
  options.now = static_cast<int64_t>(std::time(nullptr));
  options.progress = [](const crypto::BreachedImportProgress& p) {
    const double mb = static_cast<double>(p.bytes) / 1e6;
    if (p.total > 0) {
      std::fprintf(stderr, "import-breached: %llu lines, %.0f of %.0f MB (%.1f%%)\n",
                   static_cast<unsigned long long>(p.lines), mb, static_cast<double>(p.total) / 1e6,
                   100.0 * static_cast<double>(p.bytes) / static_cast<double>(p.total));
    } else {
      std::fprintf(stderr, "import-breached: %llu lines, %.0f MB\n", static_cast<unsigned long long>(p.lines), mb);
    }
  };
  const auto result = crypto::import_breached(words[2], target, options);
  std::printf("imported %llu of %llu lines into %s (--min-count %lld)\n",
              static_cast<unsigned long long>(result.entries), static_cast<unsigned long long>(result.lines),
              target.c_str(), min_count);
  return 0;
}

}  // namespace svc::admin

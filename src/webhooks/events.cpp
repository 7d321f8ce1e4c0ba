#include "webhooks/events.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace svc::webhooks {

const std::vector<std::string_view> kEventTypes = {
    "user.created",           "user.deleted",         "user.email_verified", "user.email_changed",
    "user.password_changed",  "user.password_reset",  "user.mfa_enabled",    "user.mfa_disabled",
    "user.passkey_added",     "user.passkey_removed", "session.created",     "session.revoked",
    "message.sent",           "message.failed",       "message.bounced",     "message.complained",
    "message.unsubscribed",   "user.disabled",        "user.enabled",        "user.identity_linked",
    "user.identity_unlinked",
};

bool is_event_type(std::string_view type) {
  return std::find(kEventTypes.begin(), kEventTypes.end(), type) != kEventTypes.end();
}

std::optional<std::string> parse_event_list(std::string_view list, std::string& unknown) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    std::string name(core::trim_blanks(list.substr(start, comma - start)));
    start = comma + 1;
    if (name.empty()) continue;
    if (!is_event_type(name)) {
      unknown = name;
      return std::nullopt;
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.empty()) return std::nullopt;
  return core::join(names, ",");
}

}  // namespace svc::webhooks

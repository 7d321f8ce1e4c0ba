#include "auth/handlers.hpp"
#include "auth/mfa/bearer.hpp"

namespace svc::auth {

// The first right code of a pending secret enables it.
http::Response mfa_totp_confirm(const http::Request& request, core::Context& ctx) {
  return recovery_codes_for_own_code(request, ctx, true, "mfa_enabled", "totp", MfaChange::kEnabled);
}

}  // namespace svc::auth

#include "auth/handlers.hpp"
#include "auth/mfa/bearer.hpp"

namespace svc::auth {

// A right code of the enabled factor replaces the recovery codes.
http::Response mfa_recovery_codes(const http::Request& request, core::Context& ctx) {
  return recovery_codes_for_own_code(request, ctx, false, "mfa_recovery_codes", "", MfaChange::kRecoveryCodes);
}

}  // namespace svc::auth

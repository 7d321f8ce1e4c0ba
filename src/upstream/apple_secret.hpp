#pragma once
// Sign in with Apple's client secret (docs/oidc.md "Sign in with …",
// Apple): not a fixed string but an ES256 JWT that the developer's key (the
// .p8 file, stored sealed as the provider's secret) signs, with
//   header  {"alg":"ES256","kid":KEY_ID}
//   claims  {"iss":TEAM_ID,"iat":now,"exp":now+kAppleSecretSeconds,
//            "aud":"https://appleid.apple.com","sub":CLIENT_ID}
// (Apple allows exp up to 6 months after iat). svc mints a fresh one at each
// token request, so it never expires in the operator's hands.

#include <string>
#include <string_view>

namespace svc::upstream {

inline constexpr long long kAppleSecretSeconds = 300;
inline constexpr std::string_view kAppleAudience = "https://appleid.apple.com";

// Whether `id` can be an Apple team or key id: 1 to 32 of A-Z, a-z, 0-9
// (Apple's are 10 upper-case letters and digits).
bool valid_apple_id(std::string_view id);

// The client secret for `client_id` (the Services ID) at `now` (Unix
// seconds). Throws std::invalid_argument when `p8_pem` is not a P-256 key
// in PKCS#8 PEM.
std::string apple_client_secret(std::string_view p8_pem, const std::string& team_id, const std::string& key_id,
                                const std::string& client_id, long long now);

}  // namespace svc::upstream

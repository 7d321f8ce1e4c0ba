#pragma once

#include <string>
#include <vector>

#include "http/response.hpp"

namespace svc::auth {

// 200 {"status":"Success","recovery_codes":[…]}: confirm and recovery-codes.
http::Response recovery_codes_reply(const std::vector<std::string>& codes);

// 401 {"status":"Failed","message":"Second factor required","mfa_token":…,
// "methods":["totp","recovery_code"]}: a right first step (password, e-mail
// code) of a user with a second factor. A client that knows nothing of a
// second factor sees a failed login.
http::Response second_factor_reply(const std::string& mfa_token, bool has_passkey);

}  // namespace svc::auth

#pragma once

#include <string>
#include <vector>

#include "http/response.hpp"

namespace svc::auth {

// 200 {"status":"Success","recovery_codes":[…]}: confirm and recovery-codes.
http::Response recovery_codes_reply(const std::vector<std::string>& codes);

}  // namespace svc::auth

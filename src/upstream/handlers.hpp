#pragma once
// Upstream sign-in's account routes (issue 51, docs/api.md "Sign in with
// …"), registered in src/app/routes.cpp; the hosted flow itself is
// oidc/upstream.cpp (it goes on with the OpenID Connect request).

#include <string>

#include "core/context.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace svc::upstream {

// POST /auth/upstream/identities and /auth/upstream/unlink {"id"} (account
// token): the user's linked accounts; unlinking the last way to sign in is
// 409 (upstream/account.cpp).
http::Response identities_list(const http::Request& request, core::Context& ctx);
http::Response identity_unlink(const http::Request& request, core::Context& ctx);

}  // namespace svc::upstream

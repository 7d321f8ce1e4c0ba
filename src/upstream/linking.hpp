#pragma once
// Who an upstream sign-in is (design "Upstream sign-in", the linking rules):
// a known identity signs its user in; otherwise a local user with the same
// address is linked only when the provider asserts the address verified (or
// the provider is --trust-email) and the local address is verified too;
// otherwise the user must sign in with an existing way first, then it is
// linked. No match and sign-up open: a new user, address verified.

#include <optional>
#include <string>

#include "core/context.hpp"
#include "db/site_repo.hpp"
#include "db/upstream_repo.hpp"
#include "db/user_repo.hpp"
#include "http/request.hpp"
#include "upstream/id_token.hpp"

namespace svc::upstream {

enum class Resolution {
  kSignIn,     // `user` signs in (found, linked now, or created)
  kLinkFirst,  // `user` has the address: sign in with an existing way, then link
  kRefused,    // `message` says why; nothing linked
};

struct Resolved {
  Resolution kind = Resolution::kRefused;
  std::string table;
  db::User user;
  std::string message;
};

// `table`: the auth table new users go to (the hosted pages' sign-in table).
Resolved resolve(core::Context& ctx, const http::Request& http, const db::Site& site,
                 const db::UpstreamProvider& provider, const UpstreamIdentity& identity, const db::TableName& table);

// The hash an identity waiting for the sign-in of authorization request
// `request_id` is kept under (svc_upstream_pending, kind "link").
std::string pending_link_key(const std::string& request_id);

// After a sign-in on the hosted page of authorization request `request_id`:
// links the identity waiting for it when the user who signed in is the one
// whose address it matched.
void finish_pending_link(core::Context& ctx, const http::Request& http, const std::string& request_id,
                         const std::string& table, long long user_id);

// Links the identity to the user (table, user): false when (issuer, subject)
// is linked to someone already. Queues user.identity_linked with it.
bool link_identity(core::Context& ctx, const http::Request& http, long long site_id, long long pool_id,
                   const db::UpstreamProvider& provider, const std::string& subject, const std::string& email,
                   const std::string& table, long long user_id);

}  // namespace svc::upstream

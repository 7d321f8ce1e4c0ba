#pragma once
// What every hosted form (oidc/sign_in.cpp, oidc/email_code.cpp) does first
// and last: find the waiting authorization request the form names, bound to
// this browser by its CSRF token; and, once the user is signed in, open the
// single sign-on session and go on with the flow (consent or code).

#include <optional>
#include <string>

#include "core/context.hpp"
#include "db/oauth_repo.hpp"
#include "db/site_repo.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "oidc/pages.hpp"
#include "oidc/params.hpp"

namespace svc::oidc {

// A stored request with what its pages need: its site and client.
struct Live {
  db::OAuthRequest request;
  db::Site site;
  db::OAuthClient client;
};

// The request the form's `request` names, when it is live, of an active
// site and client, bound to this browser and `csrf` matches; nullopt for
// anything else (a repeated or malformed parameter included).
std::optional<Live> live_request(const http::Request& http, const Params& p, const std::string& csrf,
                                 core::Context& ctx);

// The request a hosted page's GET names (?request=ID), as live_request;
// `csrf` is set to the token the page's forms carry.
std::optional<Live> page_request(const http::Request& http, std::string& csrf, core::Context& ctx);

// The page fields of a live request, with `error` shown ("" = none).
PageFields fields_of(const Live& live, const std::string& csrf, std::string error);

// The page for a form whose request is gone, forged or not this browser's.
http::Response expired_page();

// The user signed in on the page (session `sid` just opened): the single
// sign-on cookie names it, then the flow goes on (consent or code).
http::Response signed_in(Live& live, const std::string& sid, const http::Request& http, core::Context& ctx);

}  // namespace svc::oidc

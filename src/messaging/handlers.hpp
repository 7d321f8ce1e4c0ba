#pragma once

#include "core/context.hpp"
#include "db/site_repo.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

// The /message/notification handler (/message/sendPush is in push/). The
// dispatcher has already authenticated the site from the site-id / x-site-id
// header; every query here is scoped to it.
namespace svc::messaging {

http::Response notification(const http::Request& request, core::Context& ctx, const db::Site& site);

}  // namespace svc::messaging

#pragma once

#include <rapidjson/document.h>

#include "core/context.hpp"
#include "db/site_repo.hpp"
#include "http/request.hpp"
#include "http/response.hpp"
#include "messaging/template.hpp"

// The /message/notification handler (/message/sendPush is in push/). The
// dispatcher has already authenticated the site from the site-id / x-site-id
// header; every query here is scoped to it.
namespace svc::messaging {

// A request's `data` object as merge values: scalars become text (null
// ""), nested objects and arrays are not merge values; nullptr = none.
MergeValues values_from(const rapidjson::Value* data);

http::Response notification(const http::Request& request, core::Context& ctx, const db::Site& site);

// GET and POST /mail/unsubscribe?t=TOKEN (RFC 8058 one-click unsubscribe,
// unsubscribe.cpp): no site header; the signed token names the site and
// the address. GET answers an HTML page and changes nothing; POST
// suppresses the address for the site's bulk mail. A token that does not
// verify gets a 400 page.
http::Response unsubscribe_page(const http::Request& request, core::Context& ctx);
http::Response unsubscribe(const http::Request& request, core::Context& ctx);

}  // namespace svc::messaging

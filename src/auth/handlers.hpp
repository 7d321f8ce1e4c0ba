#pragma once

#include "core/context.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

// The /auth/* handlers: parse → validate → services/repos → reply. Each
// throws http::ApiError for anything the client should see.
namespace svc::auth {

http::Response login(const http::Request& request, core::Context& ctx);
http::Response sign_up(const http::Request& request, core::Context& ctx);
http::Response refresh_token(const http::Request& request, core::Context& ctx);
http::Response sign_out(const http::Request& request, core::Context& ctx);

}  // namespace svc::auth

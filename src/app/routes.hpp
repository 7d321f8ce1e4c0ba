#pragma once

#include <span>

#include "http/routes.hpp"

namespace svc::app {

// The one route table of the API: every row names its method, path, handler,
// body limit and flags; http::dispatch checks them centrally.
std::span<const http::Route> routes();

}  // namespace svc::app

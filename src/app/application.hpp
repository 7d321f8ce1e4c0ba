#pragma once

#include <memory>

#include "config/config.hpp"
#include "fcgi/worker.hpp"

namespace svc::app {

// The composition root of svc-fcgi: the production Services behind Context
// and the route table, as one fcgi::Application. Call it after fork (it opens
// the worker's database connections lazily and owns them).
std::unique_ptr<fcgi::Application> make_application(const config::Config& config);

}  // namespace svc::app

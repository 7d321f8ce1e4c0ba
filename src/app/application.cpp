#include "app/application.hpp"

#include <chrono>

#include "app/metrics_endpoint.hpp"
#include "app/routes.hpp"
#include "app/services.hpp"
#include "http/dispatch.hpp"

namespace svc::app {
namespace {

class Api final : public fcgi::Application {
 public:
  explicit Api(const config::Config& config) : services_(config) {}
  http::Response handle(http::Request& request, http::BodySource& body) override {
    auto started = std::chrono::steady_clock::now();
    http::Response response = http::dispatch(routes(), request, body, services_.context());
    record_request(request, response.status,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    return response;
  }

 private:
  Services services_;
};

}  // namespace

std::unique_ptr<fcgi::Application> make_application(const config::Config& config) {
  return std::make_unique<Api>(config);
}

}  // namespace svc::app

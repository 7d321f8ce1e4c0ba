#include "app/application.hpp"

#include "app/routes.hpp"
#include "app/services.hpp"
#include "http/dispatch.hpp"

namespace svc::app {
namespace {

class Api final : public fcgi::Application {
 public:
  explicit Api(const config::Config& config) : services_(config) {}
  http::Response handle(http::Request& request, http::BodySource& body) override {
    return http::dispatch(routes(), request, body, services_.context());
  }

 private:
  Services services_;
};

}  // namespace

std::unique_ptr<fcgi::Application> make_application(const config::Config& config) {
  return std::make_unique<Api>(config);
}

}  // namespace svc::app

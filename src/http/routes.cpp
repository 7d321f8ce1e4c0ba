#include "http/routes.hpp"

#include "http/health.hpp"

namespace svc::http {

// The one route table. Dispatch checks method, body limit, JSON body and site
// authentication from these rows, so handlers never repeat those checks.
std::span<const Route> routes() {
  static const Route kRoutes[] = {
      {"GET", "/health", &health, nullptr, 0, kNoFlags},
  };
  return kRoutes;
}

}  // namespace svc::http

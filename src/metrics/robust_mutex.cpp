#include "metrics/robust_mutex.hpp"

#include <cerrno>

namespace svc::metrics {

bool lock_robust(pthread_mutex_t* mutex) {
  int rc = pthread_mutex_lock(mutex);
  if (rc == EOWNERDEAD) {
    rc = pthread_mutex_consistent(mutex);
    // Not consistent: unlocking now leaves it ENOTRECOVERABLE for everyone,
    // which is the fail-closed state.
    if (rc != 0) pthread_mutex_unlock(mutex);
  }
  return rc == 0;
}

}  // namespace svc::metrics

#include "messaging/batch_counts.hpp"

namespace svc::messaging {

BatchCounts& BatchCounts::operator+=(const BatchCounts& o) {
  claimed += o.claimed;
  sent += o.sent;
  retry += o.retry;
  failed += o.failed;
  suppressed += o.suppressed;
  released += o.released;
  claim_lost += o.claim_lost;
  relay_trouble = relay_trouble || o.relay_trouble;
  return *this;
}

void add_counts(core::LogLine& line, const BatchCounts& counts) {
  line.num("claimed", counts.claimed)
      .num("sent", counts.sent)
      .num("retry", counts.retry)
      .num("failed", counts.failed)
      .num("suppressed", counts.suppressed)
      .num("released", counts.released);
}

}  // namespace svc::messaging

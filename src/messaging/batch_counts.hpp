#pragma once
// The tally of svc-sender's work: what one batch, or a pass of batches, did
// with the rows it claimed. Written by Sender (sender.hpp), read by RunRecord
// (sender_run_record.hpp) and svc-sender's log. Pure; no I/O.

#include "core/log.hpp"

namespace svc::messaging {

struct BatchCounts {
  int claimed = 0, sent = 0, retry = 0, failed = 0;
  int suppressed = 0;  // Failed without an SMTP attempt: every recipient suppressed
  int released = 0;    // handed back unsent (stop, lease half gone, relay trouble)
  int claim_lost = 0;  // outcome not recorded: another run had taken the row
  bool relay_trouble = false;

  BatchCounts& operator+=(const BatchCounts& o);
};

// Adds claimed, sent, retry, failed, suppressed and released (in this order) to `line`.
void add_counts(core::LogLine& line, const BatchCounts& counts);

}  // namespace svc::messaging

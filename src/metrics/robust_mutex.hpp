#pragma once
// Locking a process-shared robust mutex (PTHREAD_MUTEX_ROBUST) that forked
// workers share, for callers that must fail closed.

#include <pthread.h>

namespace svc::metrics {

// Locks `mutex`. When its owner died holding it (EOWNERDEAD) the mutex is
// marked consistent and the lock is held: the caller's state must be
// consistent at every store (as the outbound table's per-worker records
// are). Returns false, without holding the lock, on any other failure,
// ENOTRECOVERABLE included (a mutex an earlier owner-death left
// inconsistent): the caller then refuses whatever the lock guarded.
// REQUIRES: the caller does not hold `mutex` already.
bool lock_robust(pthread_mutex_t* mutex);

}  // namespace svc::metrics

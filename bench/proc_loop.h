/* The loop of every floor program of `make bench` (bench/argon2_impls.cpp,
 * bench/push_raw.cpp): one operation again and again
 * for SECONDS in PROCS forked processes at once (one per core), their counts
 * summed through a pipe. Header only; C and C++. */
#pragma once

#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline double bench_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* work(arg, seconds) in each of `procs` children at once: the operations it
 * did, or -1 when one failed. Returns their sum, or -1 when any child failed
 * (or the pipe could not be made); *elapsed gets the wall time of it all. */
static inline long proc_loop(int procs, double seconds, long (*work)(void*, double), void* arg, double* elapsed) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  double started = bench_now_s();
  for (int i = 0; i < procs; ++i) {
    if (fork() == 0) {
      long n = work(arg, seconds);
      _exit(write(fds[1], &n, sizeof n) == (ssize_t)sizeof n ? 0 : 1);
    }
  }
  close(fds[1]);
  long total = 0, n = 0;
  int failed = 0;
  while (read(fds[0], &n, sizeof n) == (ssize_t)sizeof n) {
    if (n < 0)
      failed = 1;
    else
      total += n;
  }
  close(fds[0]);
  while (wait(NULL) > 0) {
  }
  *elapsed = bench_now_s() - started;
  return failed ? -1 : total;
}

/* proc_loop, then its result as one JSON line on stdout
 * ({"procs","ops","seconds","ops_per_s"}), what bench/arms.py measure_raw
 * reads; a failed child: `failure` on stderr and exit status 1. */
static inline int proc_loop_report(int procs, double seconds, long (*work)(void*, double), void* arg,
                                   const char* failure) {
  double elapsed = 0;
  const long total = proc_loop(procs, seconds, work, arg, &elapsed);
  if (total < 0) {
    fprintf(stderr, "%s\n", failure);
    return 1;
  }
  printf("{\"procs\":%d,\"ops\":%ld,\"seconds\":%.3f,\"ops_per_s\":%.2f}\n", procs, total, elapsed,
         (double)total / elapsed);
  return 0;
}

/* The Argon2id floor for `make bench`: how many password verifications (or
 * new hashes) this machine does per second, in-process, with the parameters
 * of a given hash, in PROCS processes at once (one per core).
 *
 *   argon2_raw verify|hash HASH PASSWORD SECONDS PROCS
 *
 * verify: crypto_pwhash_str_verify(HASH, PASSWORD) in a loop (what a login
 * costs); hash: crypto_pwhash_str with HASH's m and t (what a sign-up costs).
 * Prints one JSON line: {"mode":..,"procs":..,"ops":..,"seconds":..,"ops_per_s":..}
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc_loop.h"

/* "$argon2id$v=19$m=19456,t=2,p=1$..." -> memlimit bytes, opslimit. */
static int parse_params(const char* hash, unsigned long long* mem, unsigned long long* ops) {
  const char* m = strstr(hash, "$m=");
  const char* t = strstr(hash, ",t=");
  if (!m || !t) return -1;
  *mem = strtoull(m + 3, NULL, 10) * 1024ULL;
  *ops = strtoull(t + 3, NULL, 10);
  return *mem > 0 && *ops > 0 ? 0 : -1;
}

/* argv of main: verify|hash HASH PASSWORD ... */
static long worker(void* arg, double seconds) {
  char** argv = (char**)arg;
  int verify = strcmp(argv[1], "verify") == 0;
  const char *hash = argv[2], *password = argv[3];
  unsigned long long mem = 0, ops = 0;
  if (!verify && parse_params(hash, &mem, &ops) != 0) return -1;
  char out[crypto_pwhash_STRBYTES];
  long n = 0;
  double end = bench_now_s() + seconds;
  while (bench_now_s() < end) {
    if (verify) {
      if (crypto_pwhash_str_verify(hash, password, strlen(password)) != 0) return -1;
    } else if (crypto_pwhash_str(out, password, strlen(password), ops, (size_t)mem) != 0) {
      return -1;
    }
    ++n;
  }
  return n;
}

int main(int argc, char** argv) {
  if (argc != 6 || (strcmp(argv[1], "verify") != 0 && strcmp(argv[1], "hash") != 0)) {
    fprintf(stderr, "usage: %s verify|hash HASH PASSWORD SECONDS PROCS\n", argv[0]);
    return 2;
  }
  if (sodium_init() < 0) return 1;
  double seconds = atof(argv[4]);
  int procs = atoi(argv[5]);
  if (procs < 1) procs = 1;
  double elapsed = 0;
  long total = proc_loop(procs, seconds, worker, argv, &elapsed);
  if (total < 0) {
    fprintf(stderr, "argon2_raw: %s failed (wrong password or parameters?)\n", argv[1]);
    return 1;
  }
  printf("{\"mode\":\"%s\",\"procs\":%d,\"ops\":%ld,\"seconds\":%.3f,\"ops_per_s\":%.2f}\n", argv[1], procs, total,
         elapsed, (double)total / elapsed);
  return 0;
}

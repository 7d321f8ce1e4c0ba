/* The floor of the webhook delivery arm (bench/webhook_bench.py): a bare
 * libcurl POST loop, one easy handle (one kept-alive connection), the body
 * and headers of a Standard Webhooks delivery as svc-sender sends them,
 * nothing else (no database, no signing).
 *
 *   webhook_raw URL COUNT   ->   {"ops": N, "seconds": S, "ops_per_s": R}
 *
 * ops counts the 2xx replies; the exit status is 1 when any request failed.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static size_t discard(char *data, size_t size, size_t count, void *user) {
  (void)data;
  (void)user;
  return size * count;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: webhook_raw URL COUNT\n");
    return 2;
  }
  const long count = atol(argv[2]);
  static const char body[] =
      "{\"type\":\"user.created\",\"timestamp\":\"2026-11-27T12:00:00Z\",\"data\":{\"site_id\":1,"
      "\"table\":\"svc_users\",\"user_id\":42,\"email\":\"bench@example.com\"}}";
  curl_global_init(CURL_GLOBAL_DEFAULT);
  CURL *h = curl_easy_init();
  struct curl_slist *headers = NULL;
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "webhook-id: msg_2KWPBgLlAfxdpx2AI54pPJ85f4W");
  headers = curl_slist_append(headers, "webhook-timestamp: 1795780800");
  headers = curl_slist_append(headers, "webhook-signature: v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=");
  headers = curl_slist_append(headers, "Expect:");
  if (h == NULL || headers == NULL) return 1;
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)(sizeof body - 1));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  long ok = 0, failed = 0;
  const double t0 = now_seconds();
  for (long i = 0; i < count; ++i) {
    long status = 0;
    if (curl_easy_perform(h) == CURLE_OK && curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
        status >= 200 && status < 300) {
      ++ok;
    } else {
      ++failed;
    }
  }
  const double seconds = now_seconds() - t0;
  printf("{\"ops\": %ld, \"failed\": %ld, \"seconds\": %.6f, \"ops_per_s\": %.1f}\n", ok, failed, seconds,
         seconds > 0 ? ok / seconds : 0.0);
  curl_slist_free_all(headers);
  curl_easy_cleanup(h);
  curl_global_cleanup();
  return failed == 0 ? 0 : 1;
}

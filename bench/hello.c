/* The FastCGI floor for `make bench`: the least a prefork libfcgi program can
 * do per request behind the same nginx as svc-fcgi. It answers every request
 * with the same small JSON body that /health returns.
 *
 *   hello SOCKET_PATH WORKERS
 */
#include "fcgi_prefork.h"

static int serve(int listen_fd, int worker) {
  (void)worker;
  FCGX_Request request;
  if (FCGX_InitRequest(&request, listen_fd, 0) != 0) return 1;
  while (FCGX_Accept_r(&request) >= 0) {
    FCGX_PutStr(kReply, (int)sizeof kReply - 1, request.out);
    FCGX_Finish_r(&request);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s SOCKET_PATH WORKERS\n", argv[0]);
    return 2;
  }
  return fcgi_prefork(argv[1], atoi(argv[2]), serve);
}

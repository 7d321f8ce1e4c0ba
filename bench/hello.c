/* The FastCGI floor for `make bench`: the least a prefork libfcgi program can
 * do per request behind the same nginx as svc-fcgi. It answers every request
 * with the same small JSON body that /health returns.
 *
 *   hello SOCKET_PATH WORKERS
 *
 * The master opens the unix socket, forks WORKERS single-threaded workers
 * that loop on FCGX_Accept_r (libfcgi's own accept and connection handling),
 * and on SIGTERM/SIGINT stops them, removes the socket and exits.
 */
#include <fcgiapp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop = 0;

static void on_stop(int sig) {
  (void)sig;
  g_stop = 1;
}

static const char kReply[] =
    "Status: 200 OK\r\n"
    "Content-Type: application/json\r\n"
    "\r\n"
    "{\"status\":\"Success\"}";

static int serve(int listen_fd) {
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
  const char* path = argv[1];
  int workers = atoi(argv[2]);
  if (workers < 1) workers = 1;
  if (FCGX_Init() != 0) return 1;
  unlink(path);
  int fd = FCGX_OpenSocket(path, 256);
  if (fd < 0) {
    perror("FCGX_OpenSocket");
    return 1;
  }
  chmod(path, 0666);

  pid_t* pids = calloc((size_t)workers, sizeof *pids);
  for (int i = 0; i < workers; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      signal(SIGTERM, SIG_DFL);
      signal(SIGINT, SIG_DFL);
      _exit(serve(fd));
    }
    pids[i] = pid;
  }
  struct sigaction sa = {0};
  sa.sa_handler = on_stop;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  while (!g_stop) pause();
  for (int i = 0; i < workers; ++i) {
    if (pids[i] > 0) kill(pids[i], SIGTERM);
  }
  for (int i = 0; i < workers; ++i) {
    if (pids[i] > 0) waitpid(pids[i], NULL, 0);
  }
  unlink(path);
  free(pids);
  return 0;
}

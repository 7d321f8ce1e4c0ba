/* The prefork master of the FastCGI floors of `make bench` (bench/hello.c,
 * bench/hello_db.c): opens the unix socket, forks WORKERS single-threaded
 * workers that each run serve(listen fd, worker index) (a libfcgi
 * FCGX_Accept_r loop), and on SIGTERM/SIGINT stops them, removes the socket
 * and exits. Header only. */
#pragma once

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

static inline int fcgi_prefork(const char* path, int workers, int (*serve)(int fd, int worker)) {
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
      _exit(serve(fd, i));
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

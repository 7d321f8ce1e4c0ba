// svc-sender: delivers Pending notification e-mails (run by a systemd timer).
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::puts("usage: svc-sender [--config FILE] [--loop SECONDS] [--batch N] [--dry-run]");
      return 0;
    }
  }
  std::fprintf(stderr, "svc-sender: e-mail delivery is not built yet\n");
  return 2;
}

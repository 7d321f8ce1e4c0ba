// svc-fcgi: the FastCGI application server (prefork master + workers).
#include <sodium.h>

#include <cstdio>
#include <cstring>
#include <exception>

#include "app/application.hpp"
#include "config/config.hpp"
#include "fcgi/front_secret.hpp"
#include "fcgi/master.hpp"

namespace {

void usage() {
  std::puts(
      "usage: svc-fcgi [--config FILE] [--check]\n"
      "  Serves the svc API over FastCGI for nginx: a master process that\n"
      "  preforks [server] workers on [server] socket (or the socket systemd\n"
      "  passes in). SIGHUP reloads the configuration, SIGTERM drains and exits.\n"
      "  --config FILE  configuration (default: $SVC_CONFIG or /etc/svc/svc.conf)\n"
      "  --check        validate the configuration and exit");
}

}  // namespace

int main(int argc, char** argv) {
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      usage();
      return 0;
    }
    if (!std::strcmp(argv[i], "--check")) check = true;
  }
  if (sodium_init() < 0) {
    std::fprintf(stderr, "svc-fcgi: libsodium failed to initialise\n");
    return 1;
  }
  try {
    auto config = svc::config::load_config(svc::config::config_path_from(argc, argv));
    if (check) {
      // The front secret too: a reload with an unreadable one is refused.
      if (!config.server.front_secret_file.empty()) svc::fcgi::load_front_secret(config.server.front_secret_file);
      std::printf("svc-fcgi: configuration %s is valid\n", config.path.c_str());
      return 0;
    }
    return svc::fcgi::run_master(std::move(config), &svc::app::make_application);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "svc-fcgi: %s\n", e.what());
    return 1;
  }
}

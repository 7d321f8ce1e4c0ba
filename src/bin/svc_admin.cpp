// svc-admin: the operator's tool for everything the API must never do.
#include <sodium.h>

#include <cstdio>
#include <exception>
#include <iostream>

#include "admin/args.hpp"
#include "admin/commands.hpp"
#include "config/config.hpp"
#include "http/api_error.hpp"

int main(int argc, char** argv) {
  if (sodium_init() < 0) {
    std::fprintf(stderr, "svc-admin: libsodium failed to initialise\n");
    return 1;
  }
  if (argc < 2) {
    std::fputs(svc::admin::usage().c_str(), stderr);
    return 2;
  }
  try {
    svc::admin::Args args(argc, argv, 1);
    return svc::admin::run_command(args, svc::config::config_path_from(argc, argv));
  } catch (const svc::http::ApiError& e) {
    // A site-management service refused (the API's 4xx): bad input, exit 2.
    std::fprintf(stderr, "svc-admin: %s\n", e.text().c_str());
    return e.status() < 500 ? 2 : 1;
  } catch (const svc::admin::UsageError& e) {
    std::fprintf(stderr, "svc-admin: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "svc-admin: %s\n", e.what());
    return 1;
  }
}

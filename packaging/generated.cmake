# Files made at build time from the programs and docs, so they cannot drift
# from them (issue 30; included from CMakeLists.txt).
#
# The manual pages, from one source each:
#   svc-fcgi(8), svc-sender(8): help2man from the program's own --help, plus
#     packaging/man/programs.h2m (ENVIRONMENT, FILES, SEE ALSO);
#   svc-admin(8): packaging/svc_admin_help.py from `svc-admin --help` (the
#     command list is more than help2man's layout guesses handle);
#   svc.conf(5): pandoc from docs/configuration.md itself, its tables turned
#     into definition lists (packaging/man/tables-as-lists.lua).
# Output: BUILD/man/*.{5,8}; packaging/install.cmake installs them gzipped
# into PREFIX/share/man. help2man and pandoc come from scripts/install-deps.sh.
find_program(SVC_HELP2MAN help2man)
find_program(SVC_PANDOC pandoc)
if(NOT SVC_HELP2MAN OR NOT SVC_PANDOC)
  message(FATAL_ERROR "help2man and pandoc make the manual pages: run scripts/install-deps.sh")
endif()

set(man_dir ${PROJECT_BINARY_DIR}/man)
file(MAKE_DIRECTORY ${man_dir})
set(svc_man_pages "")
set(h2m ${PROJECT_SOURCE_DIR}/packaging/man/programs.h2m)
foreach(entry "svc-fcgi|the svc FastCGI server: a prefork master and its workers"
              "svc-sender|deliver the e-mail queued in svc's outbox")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 prog)
  list(GET parts 1 summary)
  add_custom_command(OUTPUT ${man_dir}/${prog}.8
    COMMAND ${SVC_HELP2MAN} --no-info --section=8 --version-string=${PROJECT_VERSION}
            --name=${summary} --include=${h2m} --output=${man_dir}/${prog}.8 $<TARGET_FILE:${prog}>
    DEPENDS ${prog} ${h2m}
    COMMENT "help2man ${prog}.8" VERBATIM)
  list(APPEND svc_man_pages ${man_dir}/${prog}.8)
endforeach()

find_program(SVC_PYTHON3 python3 REQUIRED)
set(admin_help ${PROJECT_SOURCE_DIR}/packaging/svc_admin_help.py)
add_custom_command(OUTPUT ${man_dir}/svc-admin.8
  COMMAND ${SVC_PYTHON3} ${admin_help} man $<TARGET_FILE:svc-admin> ${PROJECT_VERSION} ${man_dir}/svc-admin.8
  DEPENDS svc-admin ${admin_help}
  COMMENT "svc-admin.8" VERBATIM)
list(APPEND svc_man_pages ${man_dir}/svc-admin.8)

set(conf_md ${PROJECT_SOURCE_DIR}/docs/configuration.md)
set(conf_lua ${PROJECT_SOURCE_DIR}/packaging/man/tables-as-lists.lua)
set(conf_name ${PROJECT_SOURCE_DIR}/packaging/man/svc.conf.name.md)
add_custom_command(OUTPUT ${man_dir}/svc.conf.5
  COMMAND ${SVC_PANDOC} --standalone --from=markdown --to=man --lua-filter=${conf_lua}
          --metadata=title=SVC.CONF --metadata=section=5 --metadata=header=svc
          --metadata=footer=svc\ ${PROJECT_VERSION} --output=${man_dir}/svc.conf.5 ${conf_name} ${conf_md}
  DEPENDS ${conf_md} ${conf_lua} ${conf_name}
  COMMENT "pandoc svc.conf.5" VERBATIM)
list(APPEND svc_man_pages ${man_dir}/svc.conf.5)
add_custom_target(man ALL DEPENDS ${svc_man_pages})

# The bash completion of svc-admin, from its --help: BUILD/bash-completion/svc-admin,
# installed to PREFIX/share/bash-completion/completions/svc-admin.
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/bash-completion)
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/bash-completion/svc-admin
  COMMAND ${SVC_PYTHON3} ${admin_help} completion $<TARGET_FILE:svc-admin> ${PROJECT_BINARY_DIR}/bash-completion/svc-admin
  DEPENDS svc-admin ${admin_help}
  COMMENT "bash completion of svc-admin" VERBATIM)
add_custom_target(bash-completion ALL DEPENDS ${PROJECT_BINARY_DIR}/bash-completion/svc-admin)

# Installs everything of svc but the programs (install(TARGETS) in
# CMakeLists.txt does those), run by `cmake --install` and by CPack through
# install(SCRIPT). It runs at install time, so every path follows the prefix
# chosen then (cmake --install --prefix, CPack's /usr) rather than the one the
# build was configured with; file(INSTALL) prepends DESTDIR itself.
#
# Layout (docs/deploy.md, "Installed files"), PREFIX = CMAKE_INSTALL_PREFIX:
#   PREFIX/share/svc/sql/NNN_*.sql             migrations (svc-admin finds them)
#   PREFIX/lib/systemd/system/svc-*.{socket,service,timer}
#   PREFIX/lib/sysusers.d/svc.conf, PREFIX/lib/tmpfiles.d/svc.conf
#   ETC/svc/svc.conf (0640), ETC/nginx/{sites-available,conf.d,snippets}/...
#   PREFIX/share/doc/svc/*.md (+ copyright, changelog.Debian.gz)
#   PREFIX/share/man/man{5,8}/*.gz, PREFIX/share/bash-completion/completions/svc-admin
#     (made by the build: packaging/generated.cmake)
# ETC is /etc when PREFIX is /usr (Debian), else PREFIX/etc.
# Needs SVC_SOURCE_DIR and SVC_BINARY_DIR (set by install(CODE) before this).

set(prefix "${CMAKE_INSTALL_PREFIX}")
if(prefix STREQUAL "/usr")
  set(etc "/etc")
else()
  set(etc "${prefix}/etc")
endif()
set(src "${SVC_SOURCE_DIR}")

function(svc_put dir mode)
  file(INSTALL ${ARGN} DESTINATION "${dir}" FILE_PERMISSIONS ${mode})
endfunction()
set(rw OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

file(GLOB migrations "${src}/sql/[0-9][0-9][0-9]_*.sql")
svc_put("${prefix}/share/svc/sql" "${rw}" ${migrations})

# Units name the programs and docs by their /usr/local paths in the tree.
set(units svc-fcgi.socket svc-fcgi.service svc-sender.service svc-sender.timer svc-purge.service svc-purge.timer)
set(staged "${SVC_BINARY_DIR}/packaging/units")
file(MAKE_DIRECTORY "${staged}")
foreach(unit ${units})
  file(READ "${src}/systemd/${unit}" text)
  string(REPLACE "/usr/local/bin/" "${prefix}/bin/" text "${text}")
  string(REPLACE "/usr/local/share/doc/svc/" "${prefix}/share/doc/svc/" text "${text}")
  file(WRITE "${staged}/${unit}" "${text}")
  svc_put("${prefix}/lib/systemd/system" "${rw}" "${staged}/${unit}")
endforeach()
file(INSTALL "${src}/systemd/svc.sysusers.conf" DESTINATION "${prefix}/lib/sysusers.d" RENAME svc.conf
     FILE_PERMISSIONS ${rw})
file(INSTALL "${src}/systemd/svc.tmpfiles.conf" DESTINATION "${prefix}/lib/tmpfiles.d" RENAME svc.conf
     FILE_PERMISSIONS ${rw})

svc_put("${etc}/svc" "OWNER_READ;OWNER_WRITE;GROUP_READ" "${src}/packaging/svc.conf")
svc_put("${etc}/nginx/sites-available" "${rw}" "${src}/nginx/svc.conf")
svc_put("${etc}/nginx/conf.d" "${rw}" "${src}/nginx/conf.d/svc-zones.conf")
file(GLOB snippets "${src}/nginx/snippets/svc-*.conf")
svc_put("${etc}/nginx/snippets" "${rw}" ${snippets})

# The ready reset page (nginx/snippets/svc-reset-page.conf serves it from
# $svc_www = PREFIX/share/svc/www) and the example Prometheus alert rules.
file(GLOB reset_page "${src}/web/account/*")
svc_put("${prefix}/share/svc/www/account" "${rw}" ${reset_page})
# The site console (/console/, the same snippet serves it).
file(GLOB console_page "${src}/web/console/*")
svc_put("${prefix}/share/svc/www/console" "${rw}" ${console_page})
svc_put("${prefix}/share/svc/prometheus" "${rw}" "${src}/ops/prometheus/svc-alerts.yml")

file(GLOB docs "${src}/docs/*.md")
svc_put("${prefix}/share/doc/svc" "${rw}" ${docs} "${src}/packaging/copyright")
# Debian policy: the changelog and the manual pages compressed with gzip -9n
# (no name, no time).
function(svc_gzip from to)
  execute_process(COMMAND gzip -9n -c "${from}" OUTPUT_FILE "${to}" RESULT_VARIABLE gz)
  if(NOT gz EQUAL 0)
    message(FATAL_ERROR "gzip of ${from} failed (is the build complete?)")
  endif()
endfunction()
svc_gzip("${src}/packaging/changelog" "${SVC_BINARY_DIR}/packaging/changelog.Debian.gz")
svc_put("${prefix}/share/doc/svc" "${rw}" "${SVC_BINARY_DIR}/packaging/changelog.Debian.gz")

# The manual pages (gzipped) and the bash completion, both
# made by the build (packaging/generated.cmake).
foreach(page svc-admin.8 svc-fcgi.8 svc-sender.8 svc.conf.5)
  string(REGEX REPLACE ".*\\." "" section "${page}")
  svc_gzip("${SVC_BINARY_DIR}/man/${page}" "${SVC_BINARY_DIR}/man/${page}.gz")
  svc_put("${prefix}/share/man/man${section}" "${rw}" "${SVC_BINARY_DIR}/man/${page}.gz")
endforeach()
svc_put("${prefix}/share/bash-completion/completions" "${rw}" "${SVC_BINARY_DIR}/bash-completion/svc-admin")

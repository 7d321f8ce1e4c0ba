# CPack settings for `make deb` (included from CMakeLists.txt). Why CPack and
# not debhelper: docs/decisions.md, "Packaging".
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME svc)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "svc maintainers")
set(CPACK_PACKAGE_CONTACT "svc maintainers <maintainers@svc.example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "authentication and messaging service (FastCGI)")
# CPack puts the summary on the Description line; this is the extended text.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "svc serves sign-up, login, password reset, SMS codes, e-mail notifications
and web push for several sites as a FastCGI application behind nginx, with
MariaDB or MySQL for storage. It ships svc-fcgi (the prefork FastCGI server),
svc-sender (the e-mail outbox sender, run by a systemd timer) and svc-admin
(migrations, sites, templates, doctor, retention).")
# The whole package lives under /usr and /etc; DESTDIR staging keeps the
# absolute /etc paths of packaging/install.cmake inside the package.
# With CPACK_SET_DESTDIR, CPack installs with CMAKE_INSTALL_PREFIX =
# CPACK_INSTALL_PREFIX (whatever prefix the build was configured with).
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_SET_DESTDIR ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Library dependencies come from dpkg-shlibdeps on the stripped programs;
# systemd runs the sysusers/tmpfiles steps of postinst.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "systemd")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "nginx, default-mysql-server | virtual-mysql-server")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${PROJECT_SOURCE_DIR}/packaging/conffiles;${PROJECT_SOURCE_DIR}/packaging/postinst;${PROJECT_SOURCE_DIR}/packaging/prerm;${PROJECT_SOURCE_DIR}/packaging/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)

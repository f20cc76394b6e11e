# What `cmake --install` puts under its prefix, and the Debian package CPack makes of it:
#   bin/gantry                   the program (tools/CMakeLists.txt)
#   share/gantry/scenarios/      the shipped scenarios with their data
#   share/gantry/web/            the built web app (web/ui/dist: npm run build)
#   share/gantry/{workflow,sim}/ the manuals errors link to, beside scenarios/README.md
# The program finds the last two from its own path (tools/gantry/shipped_data.hpp), so these
# paths are fixed, not GNUInstallDirs' variables: a changed datadir would hide them from it.

install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION share/gantry/scenarios)
# The manuals an error's "see:" line points at (tools/gantry/manual_links.hpp), at the paths
# they have in the repository (scenarios/README.md comes with the scenarios).
install(FILES ${PROJECT_SOURCE_DIR}/workflow/README.md DESTINATION share/gantry/workflow)
install(FILES ${PROJECT_SOURCE_DIR}/sim/PLANNING.md DESTINATION share/gantry/sim)

# The web app is built by npm, not by CMake. Installing without it would ship a server whose
# page says "not built"; say so here instead, unless the packager chose to leave it out.
option(GANTRY_INSTALL_WEB_UI "Install the built web app (web/ui/dist) into share/gantry/web" ON)
if(GANTRY_INSTALL_WEB_UI)
  set(GANTRY_WEB_DIST ${PROJECT_SOURCE_DIR}/web/ui/dist)
  install(CODE "
    if(NOT EXISTS \"${GANTRY_WEB_DIST}/index.html\")
      message(FATAL_ERROR \"gantry install: the web app is not built (no ${GANTRY_WEB_DIST}/index.html): run (cd web/ui && npm ci && npm run build) first, or configure with -DGANTRY_INSTALL_WEB_UI=OFF\")
    endif()")
  install(DIRECTORY ${GANTRY_WEB_DIST}/ DESTINATION share/gantry/web)
endif()

# `cpack -G DEB` (or the `package` target): gantry_<version>_<arch>.deb, installed with
# `apt install ./gantry_*.deb`. dpkg-shlibdeps (dpkg-dev) works out the shared libraries'
# packages from the binary; tzdata is read at run time (cron time zones), so it is declared.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gantry)
set(CPACK_PACKAGE_VENDOR "Gantry")
set(CPACK_PACKAGE_CONTACT "Gantry developers <gantry@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU cluster simulator and ML workflow orchestrator")
set(CPACK_PACKAGE_DESCRIPTION
    "Replays months of training jobs, inference services and pipelines on a modelled GPU, RDMA and storage cluster in seconds, plans capacity, and runs pipeline DAGs with cron schedules, backfill and retries against the simulator or a live Kubernetes cluster.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "tzdata")
set(CPACK_STRIP_FILES ON)
include(CPack)

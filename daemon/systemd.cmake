# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hwsightd's systemd unit: configured, installed and tested. Included from
# daemon/CMakeLists.txt once the hwsightd target exists:
#
#   include(${CMAKE_CURRENT_SOURCE_DIR}/systemd.cmake)
#
# ExecStart= names hwsightd in HWSIGHTD_INSTALL_BINDIR (default: sbin, where
# install(TARGETS hwsightd) puts it) under the prefix given at configure
# time. A daemon installed elsewhere sets HWSIGHTD_INSTALL_BINDIR before
# the include and installs to the same place. "cmake --install --prefix"
# moves the files, not the path in ExecStart=: configure with the prefix.

if(NOT DEFINED HWSIGHTD_INSTALL_BINDIR)
  set(HWSIGHTD_INSTALL_BINDIR ${CMAKE_INSTALL_SBINDIR})
endif()
if(IS_ABSOLUTE "${HWSIGHTD_INSTALL_BINDIR}")
  set(HWSIGHTD_FULL_PATH ${HWSIGHTD_INSTALL_BINDIR}/hwsightd)
else()
  set(HWSIGHTD_FULL_PATH ${CMAKE_INSTALL_PREFIX}/${HWSIGHTD_INSTALL_BINDIR}/hwsightd)
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/hwsightd.service.in
               ${CMAKE_CURRENT_BINARY_DIR}/hwsightd.service @ONLY)

# Where systemd's files go. With the prefix /usr, systemd's own directory
# (as its pkg-config file says: /lib/systemd/system on Debian 12). With any
# other prefix, lib/systemd/SUBDIR under it, so that an install never
# writes outside its prefix: systemd reads /usr/local/lib/systemd/system
# (and system-generators) too. A non-empty cache variable OVERRIDE wins.
function(hws_systemd_dir var pc_variable subdir override)
  if(${override})
    set(dir ${${override}})
  else()
    set(dir lib/systemd/${subdir})
    if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
      pkg_get_variable(pc_dir systemd ${pc_variable})
      if(pc_dir)
        set(dir ${pc_dir})
      endif()
    endif()
  endif()
  set(${var} ${dir} PARENT_SCOPE)
endfunction()

set(HWS_SYSTEMD_UNITDIR "" CACHE STRING
  "Directory for hwsightd.service (empty: systemd's with prefix /usr, else PREFIX/lib/systemd/system)")
hws_systemd_dir(hws_unitdir systemdsystemunitdir system HWS_SYSTEMD_UNITDIR)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hwsightd.service DESTINATION ${hws_unitdir})

# The generator that makes the unit's IP allow-list follow listen=
# (hwsightd-generator.in says how).
set(HWSD_DEFAULT_CONFIG /etc/hwsight/hwsightd.conf)
configure_file(${CMAKE_CURRENT_LIST_DIR}/hwsightd-generator.in
               ${CMAKE_CURRENT_BINARY_DIR}/hwsightd-generator @ONLY)
set(HWS_SYSTEMD_GENERATORDIR "" CACHE STRING
  "Directory for hwsightd-generator (empty: systemd's with prefix /usr, else PREFIX/lib/systemd/system-generators)")
hws_systemd_dir(hws_generatordir systemdsystemgeneratordir system-generators HWS_SYSTEMD_GENERATORDIR)
install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/hwsightd-generator DESTINATION ${hws_generatordir})

# Tests: the unit as installed must load without a single complaint, and
# its sandbox must not quietly loosen: systemd-analyze security rates it
# 1.4, and anything above 2.0 leaves systemd's "OK" band. A change that
# needs more (AF_INET for the HTTP server) says why where it raises this.
if(BUILD_TESTING AND TARGET hwsightd)
  add_test(NAME systemd/unit-verify
    COMMAND /bin/sh ${CMAKE_CURRENT_LIST_DIR}/test-unit.sh verify
      ${CMAKE_CURRENT_BINARY_DIR}/hwsightd.service $<TARGET_FILE:hwsightd>
      ${PROJECT_SOURCE_DIR}/man)
  add_test(NAME systemd/unit-security
    COMMAND /bin/sh ${CMAKE_CURRENT_LIST_DIR}/test-unit.sh security
      ${CMAKE_CURRENT_BINARY_DIR}/hwsightd.service 2.0)
  add_test(NAME systemd/generator
    COMMAND /bin/sh ${CMAKE_CURRENT_LIST_DIR}/test-unit.sh generator
      ${CMAKE_CURRENT_BINARY_DIR}/hwsightd.service $<TARGET_FILE:hwsightd>
      ${CMAKE_CURRENT_BINARY_DIR}/hwsightd-generator)
  set_tests_properties(systemd/unit-verify systemd/unit-security systemd/generator PROPERTIES
    LABELS unit TIMEOUT 60)
endif()

# The example configuration is printed in hwsightd.conf(5): the two must
# stay the same file. Registered here because it needs no unit and no
# binary, only these sources.
if(BUILD_TESTING)
  add_test(NAME daemon/conf-example
    COMMAND /bin/sh ${CMAKE_CURRENT_LIST_DIR}/test-conf-example.sh
      ${CMAKE_CURRENT_LIST_DIR}/hwsightd.conf ${PROJECT_SOURCE_DIR}/man/hwsightd.conf.5)
  set_tests_properties(daemon/conf-example PROPERTIES LABELS unit TIMEOUT 30)
endif()

# Debian packages with `cpack -G DEB` (docs/release.md): the install components of
# CMakeLists.txt, one package each.
#   sdscprov      the binary, man page, bash/zsh/fish completions, /usr/share/doc/sdscprov
#   sdscprov-dev  the static library, its headers and CMake package
# The runtime package's Depends come from the built binary (dpkg-shlibdeps), the -dev package's
# from the build too: the Debian packages that own the headers and CMake files this build found
# for the library's link interface (simdjson, OpenSSL, liburing, zlib).
set(CPACK_PACKAGE_NAME sdscprov)
set(CPACK_PACKAGE_VENDOR "sdscprov")
set(CPACK_PACKAGE_CONTACT "sdscprov maintainers <maintainers@users.noreply.a-seed-4ecf1dfa.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME sdscprov)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION utils)
string(CONCAT CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "Scans torch-spyre kernel caches for provenance (debug_handle_), writes it back from the\n"
    "compile's sidecars, gates golden kernels in CI, explains a kernel op by op and ranks a\n"
    "profiler trace's device time by model source line.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME sdscprov-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
string(CONCAT CPACK_COMPONENT_DEV_DESCRIPTION
    "The sdscprov library (static) with its C++20 headers and CMake package:\n"
    "find_package(sdscprov) gives sdscprov::sdscprov.")

# The package that owns `file`, as dpkg knows it ("libssl-dev:amd64: /usr/include/..." gives
# libssl-dev), appended to `out`; nothing when dpkg does not know it (a dependency built by hand).
function(sdscprov_owning_package file out)
    find_program(SDSCPROV_DPKG_QUERY dpkg-query)
    if(NOT SDSCPROV_DPKG_QUERY OR NOT EXISTS "${file}")
        return()
    endif()
    get_filename_component(real "${file}" REALPATH)
    foreach(candidate "${file}" "${real}")
        execute_process(COMMAND ${SDSCPROV_DPKG_QUERY} -S "${candidate}"
                        OUTPUT_VARIABLE owner ERROR_QUIET RESULT_VARIABLE rc)
        if(rc EQUAL 0)
            string(REGEX REPLACE "[:,].*" "" owner "${owner}")
            string(STRIP "${owner}" owner)
            set(${out} ${${out}} ${owner} PARENT_SCOPE)
            return()
        endif()
    endforeach()
endfunction()

set(SDSCPROV_DEV_DEPENDS)
sdscprov_owning_package("${simdjson_DIR}/simdjson-config.cmake" SDSCPROV_DEV_DEPENDS)
sdscprov_owning_package("${OPENSSL_INCLUDE_DIR}/openssl/crypto.h" SDSCPROV_DEV_DEPENDS)
sdscprov_owning_package("${LIBURING_INCLUDEDIR}/liburing.h" SDSCPROV_DEV_DEPENDS)
sdscprov_owning_package("${ZLIB_INCLUDE_DIR}/zlib.h" SDSCPROV_DEV_DEPENDS)
list(REMOVE_DUPLICATES SDSCPROV_DEV_DEPENDS)
list(PREPEND SDSCPROV_DEV_DEPENDS "sdscprov (= ${PROJECT_VERSION})")
list(JOIN SDSCPROV_DEV_DEPENDS ", " CPACK_DEBIAN_DEV_PACKAGE_DEPENDS)

include(CPack)

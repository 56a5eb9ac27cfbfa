# CMake toolchain file for offline builds.
#
# The QuickJS backend (crate v8x) builds WAMR with CMake, and WAMR's CMake
# fetches the header-only simde library from GitHub unless FetchContent is
# pointed at a local copy. Debian's libsimde-dev installs those headers under
# /usr/include/simde, so we point FetchContent there.
set(FETCHCONTENT_SOURCE_DIR_SIMDE "/usr/include" CACHE PATH "simde headers (Debian libsimde-dev)")

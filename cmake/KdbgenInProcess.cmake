# kdbgen-compile-worker (src/compile/worker) links Clang, LLVM and lld as
# libraries, those of KDBGEN_DEFAULT_LLVM_ROOT: on Debian 12 the very
# libclang-cpp and libLLVM that /usr/lib/llvm-19/bin/clang runs on, so a
# compile in the worker makes the bytes the clang binary makes. Needs
# libclang-19-dev, liblld-19-dev and llvm-19-dev; without them kdbgen builds
# and compiles as before, with clang processes.
set(KDBGEN_IN_PROCESS AUTO CACHE STRING
    "Build the in-process compile worker: AUTO (when the Clang and lld libraries are installed), ON (required), OFF")
set_property(CACHE KDBGEN_IN_PROCESS PROPERTY STRINGS AUTO ON OFF)
set(KDBGEN_HAVE_COMPILE_WORKER OFF)
if(NOT KDBGEN_IN_PROCESS STREQUAL "OFF")
  set(_root ${KDBGEN_DEFAULT_LLVM_ROOT})
  find_path(KDBGEN_CLANG_INCLUDE_DIR clang/FrontendTool/Utils.h PATHS ${_root}/include NO_DEFAULT_PATH)
  find_path(KDBGEN_LLD_INCLUDE_DIR lld/Common/Driver.h PATHS ${_root}/include NO_DEFAULT_PATH)
  find_path(KDBGEN_LLVM_INCLUDE_DIR llvm/Support/TargetSelect.h PATHS ${_root}/include NO_DEFAULT_PATH)
  # libclang-cpp has no unversioned link on Debian: the versioned file is what clang itself loads.
  if(NOT KDBGEN_CLANG_CPP_LIBRARY)
    file(GLOB _clang_cpp ${_root}/lib/libclang-cpp.so.*)
    if(_clang_cpp)
      list(SORT _clang_cpp)
      list(GET _clang_cpp 0 _clang_cpp_first)
      set(KDBGEN_CLANG_CPP_LIBRARY "${_clang_cpp_first}" CACHE FILEPATH "libclang-cpp of the worker" FORCE)
    endif()
  endif()
  find_library(KDBGEN_LLVM_LIBRARY NAMES LLVM LLVM-19 PATHS ${_root}/lib NO_DEFAULT_PATH)
  find_library(KDBGEN_LLD_ELF_LIBRARY NAMES lldELF PATHS ${_root}/lib NO_DEFAULT_PATH)
  find_library(KDBGEN_LLD_COMMON_LIBRARY NAMES lldCommon PATHS ${_root}/lib NO_DEFAULT_PATH)
  # lld's static libraries compress sections with zlib and zstd (llvm-19-dev pulls in their -dev packages).
  find_package(ZLIB QUIET)
  find_library(KDBGEN_ZSTD_LIBRARY NAMES zstd)
  set(_missing)
  if(NOT ZLIB_FOUND)
    list(APPEND _missing zlib)
  endif()
  foreach(_var KDBGEN_CLANG_INCLUDE_DIR KDBGEN_LLD_INCLUDE_DIR KDBGEN_LLVM_INCLUDE_DIR KDBGEN_CLANG_CPP_LIBRARY
          KDBGEN_LLVM_LIBRARY KDBGEN_LLD_ELF_LIBRARY KDBGEN_LLD_COMMON_LIBRARY KDBGEN_ZSTD_LIBRARY)
    if(NOT ${_var} OR ${_var} MATCHES "-NOTFOUND$")
      list(APPEND _missing ${_var})
    endif()
  endforeach()
  if(_missing)
    set(_why "no Clang/lld libraries in ${_root} (${_missing}); install libclang-19-dev liblld-19-dev llvm-19-dev")
    if(KDBGEN_IN_PROCESS STREQUAL "ON")
      message(FATAL_ERROR "KDBGEN_IN_PROCESS=ON: ${_why}")
    endif()
    message(STATUS "kdbgen: in-process compilation not built: ${_why}")
  else()
    set(KDBGEN_HAVE_COMPILE_WORKER ON)
    message(STATUS "kdbgen: in-process compile worker against ${_root}")
  endif()
endif()

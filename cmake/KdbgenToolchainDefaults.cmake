# KDBGEN_DEFAULT_LLVM_ROOT and KDBGEN_DEFAULT_DEVICE_LIBS: what kdbgen drives
# when no --llvm-root / --device-libs is given, found on this system.
#
# Device libraries: Debian 12's rocm-device-libs installs its bitcode under
# /usr/lib/x86_64-linux-gnu/amdgcn/bitcode; trixie's and sid's versioned
# packages (rocm-device-libs-17, -21) under their LLVM's resource folder,
# /usr/lib/llvm-N/lib/clang/N/amdgcn/bitcode. The newest is taken.
# LLVM: one that can read that bitcode (as new as the LLVM that wrote it):
# 19 where it can (what kdbgen is tested with most), else the oldest newer one.
set(_devlibs "")
set(_devlibs_llvm 0)
if(EXISTS /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc)
  set(_devlibs /usr/lib/x86_64-linux-gnu/amdgcn/bitcode)
else()
  file(GLOB _found /usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode/ocml.bc)
  foreach(_file IN LISTS _found)
    if(_file MATCHES "/usr/lib/llvm-([0-9]+)/")
      if(CMAKE_MATCH_1 GREATER _devlibs_llvm)
        set(_devlibs_llvm ${CMAKE_MATCH_1})
        get_filename_component(_devlibs ${_file} DIRECTORY)
      endif()
    endif()
  endforeach()
endif()
if(NOT _devlibs)
  set(_devlibs /usr/lib/x86_64-linux-gnu/amdgcn/bitcode)  # kdbgen names it when it is missing
endif()

set(_llvm "")
if(EXISTS /usr/lib/llvm-19/bin/clang AND _devlibs_llvm LESS_EQUAL 19)
  set(_llvm /usr/lib/llvm-19)
else()
  file(GLOB _clangs /usr/lib/llvm-*/bin/clang)
  set(_best 1000)
  foreach(_clang IN LISTS _clangs)
    if(_clang MATCHES "/usr/lib/llvm-([0-9]+)/bin/clang$")
      if(CMAKE_MATCH_1 GREATER_EQUAL _devlibs_llvm AND CMAKE_MATCH_1 LESS _best)
        set(_best ${CMAKE_MATCH_1})
        set(_llvm /usr/lib/llvm-${CMAKE_MATCH_1})
      endif()
    endif()
  endforeach()
endif()
if(NOT _llvm)
  set(_llvm /usr/lib/llvm-19)  # kdbgen names it when it is missing
endif()

set(KDBGEN_DEFAULT_LLVM_ROOT "${_llvm}" CACHE PATH
    "LLVM installation kdbgen drives by default (clang, ld.lld, llvm-as)")
set(KDBGEN_DEFAULT_DEVICE_LIBS "${_devlibs}" CACHE PATH
    "ROCm device-library bitcode folder used by default")
message(STATUS "kdbgen: LLVM ${KDBGEN_DEFAULT_LLVM_ROOT}, device libraries ${KDBGEN_DEFAULT_DEVICE_LIBS}")

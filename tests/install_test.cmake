# Installs into a scratch prefix and runs the installed kdbgen on the demo.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
foreach(path bin/kdbgen libexec/kdbgen/kdbgen-sandbox libexec/kdbgen/kdbgen-compiler-wrapper
             share/man/man1/kdbgen.1 share/kdbgen/configs/demo/kernels.toml
             share/kdbgen/configs/networks/resnet50.toml share/kdbgen/kernels/kdbgen_fill.s
             share/kdbgen/hiprtc/include/kdbgen_hiprtc_builtins.h share/doc/kdbgen/packaging.md
             share/kdbgen/slurm/kdbgen-slurm-build)
  if(NOT EXISTS ${WORK_DIR}/prefix/${path})
    message(FATAL_ERROR "not installed: ${path}")
  endif()
endforeach()
# No installed program or library names the source or build tree (reproducible packages:
# cmake/KdbgenBuildTree.cmake maps them away): neither in __FILE__ strings nor in debug info.
file(GLOB_RECURSE installed LIST_DIRECTORIES false ${WORK_DIR}/prefix/bin/* ${WORK_DIR}/prefix/libexec/*)
foreach(tree ${SOURCE_DIR} ${BUILD_DIR})
  string(REGEX REPLACE "([][+.*()^$?|\\])" "\\\\\\1" pattern "${tree}")
  foreach(file ${installed})
    file(STRINGS ${file} hits REGEX "${pattern}" LIMIT_COUNT 1)
    if(hits)
      message(FATAL_ERROR "${file} holds the path ${tree}: ${hits}")
    endif()
  endforeach()
endforeach()
list(LENGTH installed count)
if(count LESS 3)
  message(FATAL_ERROR "expected kdbgen and its helpers under bin/ and libexec/, found ${installed}")
endif()
# The installed binary must not need the source tree: hide it by running from the prefix.
execute_process(COMMAND ${WORK_DIR}/prefix/bin/kdbgen build --targets gfx1030_36 -o ${WORK_DIR}/out --no-cache -q
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK_DIR}/out/gfx1030_36.kdb)
  message(FATAL_ERROR "installed kdbgen failed (${rc}): ${out} ${err}")
endif()
execute_process(COMMAND ${WORK_DIR}/prefix/bin/kdbgen verify ${WORK_DIR}/out/gfx1030_36.kdb RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "installed kdbgen's kdb does not verify")
endif()
# With the in-process worker built, the installed kdbgen compiles with the installed worker.
if(WITH_WORKER)
  set(worker ${WORK_DIR}/prefix/libexec/kdbgen/kdbgen-compile-worker)
  if(NOT EXISTS ${worker})
    message(FATAL_ERROR "not installed: libexec/kdbgen/kdbgen-compile-worker")
  endif()
  execute_process(COMMAND ${WORK_DIR}/prefix/bin/kdbgen build --targets gfx1030_36 -o ${WORK_DIR}/out2 --no-cache -q
                          --in-process on --json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "installed kdbgen --in-process on failed (${rc}): ${err}")
  endif()
  string(JSON used GET "${out}" in_process worker)
  file(REAL_PATH ${worker} worker_real)
  file(REAL_PATH ${used} used_real)
  if(NOT used_real STREQUAL worker_real)
    message(FATAL_ERROR "installed kdbgen used ${used}, not ${worker}")
  endif()
endif()
message(STATUS "install layout ok")

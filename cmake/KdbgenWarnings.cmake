# The warnings kdbgen's own code is built with (as ccache's StandardWarnings.cmake):
# an interface library that kdbgen's targets link (link_libraries in src/ and tests/),
# so nothing outside kdbgen's code, LLVM's headers included (taken as SYSTEM), is held
# to them. KDBGEN_WERROR=ON (CI) makes a new warning a failed build.
add_library(kdbgen_warnings INTERFACE)
target_compile_options(kdbgen_warnings INTERFACE -Wall -Wextra)
option(KDBGEN_WERROR "Treat compiler warnings in kdbgen's code as errors" OFF)
if(KDBGEN_WERROR)
  target_compile_options(kdbgen_warnings INTERFACE -Werror)
endif()

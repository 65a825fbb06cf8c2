# No absolute path of the source or build tree goes into what kdbgen installs, so
# packages built in different folders are the same bytes: __FILE__ and the debug
# information name files relative to the trees (checked by tests/install_test.cmake).
add_compile_options(-ffile-prefix-map=${PROJECT_SOURCE_DIR}=. -ffile-prefix-map=${PROJECT_BINARY_DIR}=.)

# A kdbgen run from the build tree finds its data and helpers as an installed one
# does, relative to its own executable (src/util/paths.cpp, src/compile/inprocess.cpp):
# <build>/share/kdbgen/* and <build>/libexec/kdbgen/* link to where they are.
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/share/kdbgen ${PROJECT_BINARY_DIR}/libexec/kdbgen)
foreach(pair "configs=configs" "kernels=kernels" "hiprtc=src/compile/hiprtc")
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 name)
  list(GET pair 1 source)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${source} ${PROJECT_BINARY_DIR}/share/kdbgen/${name} SYMBOLIC)
endforeach()

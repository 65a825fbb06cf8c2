# Every dependency comes from a Debian package (Debian 12, 13 and sid);
# tools/install-deps names them.
find_package(CLI11 REQUIRED CONFIG)
find_package(fmt REQUIRED CONFIG)
find_package(spdlog REQUIRED CONFIG)
find_package(SQLite3 REQUIRED)
find_package(BZip2 REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(nlohmann_json REQUIRED CONFIG)
find_package(tomlplusplus REQUIRED CONFIG)
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)
find_package(ONNX REQUIRED CONFIG)
# ONNX up to 1.17 (Debian 12, trixie) exports `onnx`, linking onnx_proto and
# protobuf; 1.20 (sid) exports `ONNX::onnx` and `ONNX::onnx_proto` with no
# link interface, so protobuf is named here. kdbgen links kdbgen_onnx.
add_library(kdbgen_onnx INTERFACE)
if(TARGET ONNX::onnx)
  target_link_libraries(kdbgen_onnx INTERFACE ONNX::onnx ONNX::onnx_proto protobuf::libprotobuf)
else()
  target_link_libraries(kdbgen_onnx INTERFACE onnx)
endif()

# The LibTorch-compatible layer (docs/libtorch-idioms.md): LibTorch's headers over ember, at
# their own include root (include/ember/libtorch, installed with ember's headers as
# <prefix>/include/ember/libtorch, so a machine with a real LibTorch never confuses the two),
# and the few adapters that are not headers (src/libtorch) in their own library, so a program
# that does not use the layer links none of its torch:: symbols. Found by
#   c++ -std=c++20 prog.cpp $(pkg-config --cflags --libs ember-libtorch)
#   find_package(Torch) with -DTorch_DIR=<prefix>/share/cmake/Torch
file(GLOB EMBER_LIBTORCH_SOURCES CONFIGURE_DEPENDS src/libtorch/*.cpp)
add_library(ember_libtorch ${EMBER_LIBTORCH_SOURCES})
add_library(ember::ember_libtorch ALIAS ember_libtorch)
target_include_directories(ember_libtorch
  PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include/ember/libtorch>
         $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/ember/libtorch>)
target_include_directories(ember_libtorch PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(ember_libtorch PUBLIC ember)
target_compile_options(ember_libtorch PRIVATE -Wall -Wextra)
set_target_properties(ember_libtorch PROPERTIES VERSION ${PROJECT_VERSION}
                                                SOVERSION ${PROJECT_VERSION_MAJOR})

set(EMBER_TORCH_CMAKE_DIR ${CMAKE_INSTALL_DATAROOTDIR}/cmake/Torch)
install(TARGETS ember_libtorch EXPORT emberLibtorchTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT emberLibtorchTargets NAMESPACE ember:: DESTINATION ${EMBER_TORCH_CMAKE_DIR})
configure_package_config_file(cmake/TorchConfig.cmake.in ${PROJECT_BINARY_DIR}/TorchConfig.cmake
  INSTALL_DESTINATION ${EMBER_TORCH_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
# LibTorch projects ask for no version or for their LibTorch's (1.x, 2.x): any is accepted, the
# layer follows 1.13's API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/TorchConfigVersion.cmake
  VERSION 1.13.1 COMPATIBILITY AnyNewerVersion)
install(FILES ${PROJECT_BINARY_DIR}/TorchConfig.cmake ${PROJECT_BINARY_DIR}/TorchConfigVersion.cmake
        DESTINATION ${EMBER_TORCH_CMAKE_DIR})
configure_file(cmake/ember-libtorch.pc.in ${PROJECT_BINARY_DIR}/ember-libtorch.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ember-libtorch.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

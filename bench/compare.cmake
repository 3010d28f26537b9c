# The side-by-side comparison with PyTorch (bench/compare.py): ember's twin always, LibTorch's
# twin when Debian's libtorch-dev is installed (scripts/bootstrap.sh --bench).
add_executable(ember_ops ${CMAKE_CURRENT_SOURCE_DIR}/ember_ops.cpp)
target_link_libraries(ember_ops PRIVATE ember)
# ember's internal headers: the conv grad_weight row calls the CPU kernel (no public op runs it alone).
target_include_directories(ember_ops PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_options(ember_ops PRIVATE -Wall -Wextra)

# The LibTorch training twin built unchanged on ember's LibTorch layer (docs/libtorch-idioms.md):
# bench/train_compare.py runs it beside the same source built on LibTorch.
add_executable(train_libtorch_on_ember ${CMAKE_CURRENT_SOURCE_DIR}/train_libtorch.cpp)
target_link_libraries(train_libtorch_on_ember PRIVATE ember_libtorch ZLIB::ZLIB)

find_package(Torch QUIET PATHS /usr/lib/x86_64-linux-gnu/cmake/Torch)
if(Torch_FOUND)
  add_executable(libtorch_ops ${CMAKE_CURRENT_SOURCE_DIR}/libtorch_ops.cpp)
  target_link_libraries(libtorch_ops PRIVATE ${TORCH_LIBRARIES})
  set_property(TARGET libtorch_ops PROPERTY CXX_STANDARD 17)
  # The training twin of examples/fashion_mnist (bench/train_compare.py).
  add_executable(train_libtorch ${CMAKE_CURRENT_SOURCE_DIR}/train_libtorch.cpp)
  target_link_libraries(train_libtorch PRIVATE ${TORCH_LIBRARIES} ZLIB::ZLIB)
  set_property(TARGET train_libtorch PROPERTY CXX_STANDARD 17)
else()
  message(STATUS "LibTorch not found: bench/compare.py will compare with Python's PyTorch only")
endif()

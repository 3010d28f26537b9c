// The LibTorch version whose API the layer follows: 1.13.1, as TorchConfigVersion.cmake says
// (cmake/libtorch_layer.cmake), so `#if TORCH_VERSION_MAJOR >= 2` picks a program's 1.x path.
#pragma once

#define TORCH_VERSION_MAJOR 1
#define TORCH_VERSION_MINOR 13
#define TORCH_VERSION_PATCH 1
#define TORCH_VERSION "1.13.1"

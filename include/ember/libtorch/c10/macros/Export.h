// LibTorch's symbol-visibility macros, which programs put on their own classes
// (`class TORCH_API NetImpl : public torch::nn::Module`): default visibility, as LibTorch's
// shared-library build defines them on GCC and Clang.
#pragma once

#define C10_EXPORT __attribute__((__visibility__("default")))
#define C10_HIDDEN __attribute__((__visibility__("hidden")))
#define C10_IMPORT C10_EXPORT
#define C10_API C10_EXPORT
#define TORCH_API C10_EXPORT
#define TORCH_CUDA_CPP_API C10_EXPORT
#define TORCH_CUDA_CU_API C10_EXPORT

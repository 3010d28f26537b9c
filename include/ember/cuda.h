// CUDA device queries. In a build without CUDA, is_available() is false, device_count() is 0 and
// anything that needs a GPU throws ember::Error saying ember was built without CUDA.
#pragma once

namespace ember::cuda {

bool is_available();
int device_count();
void synchronize();

}  // namespace ember::cuda

// Placeholder: filled in by the NN kernels work.
#pragma once

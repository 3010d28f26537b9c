// LibTorch's data API, torch::data, over ember tensors: datasets (Dataset, BatchDataset,
// MapDataset through .map(), TensorDataset, MNIST, stateful and shared datasets), transforms
// (Normalize, Stack, Lambda, ...), samplers, and make_data_loader with worker threads.
// torch::data::datasets::ChunkDataset is not part of the layer.
#pragma once

#include "torch/data/dataloader.h"
#include "torch/data/datasets.h"
#include "torch/data/example.h"
#include "torch/data/samplers.h"
#include "torch/data/transforms.h"

namespace torch::data {
// As LibTorch's, the bases are named in torch::data too.
using datasets::BatchDataset;
using datasets::Dataset;
}  // namespace torch::data

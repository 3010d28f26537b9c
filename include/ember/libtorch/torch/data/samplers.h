// torch::data::samplers: Sequential, Random, DistributedSequential, DistributedRandom and
// Stream samplers.
#pragma once

#include "torch/data/samplers/base.h"
#include "torch/data/samplers/custom_batch_request.h"
#include "torch/data/samplers/distributed.h"
#include "torch/data/samplers/random.h"
#include "torch/data/samplers/sequential.h"
#include "torch/data/samplers/serialize.h"
#include "torch/data/samplers/stream.h"

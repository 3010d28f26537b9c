// ember::data — datasets, samplers, DataLoader, Fashion-MNIST and image transforms
// (torch.utils.data + the torchvision parts the reference uses).
#pragma once

#include "ember/data/collate.h"
#include "ember/data/dataloader.h"
#include "ember/data/dataset.h"
#include "ember/data/distributed_sampler.h"
#include "ember/data/sampler.h"
#include "ember/data/worker.h"
#include "ember/data/idx.h"
#include "ember/data/mnist.h"
#include "ember/data/transforms.h"

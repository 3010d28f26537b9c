// LibTorch's torch::optim on ember: the optimizer base and option builders of LibTorch 1.13 over
// ember's optimizers (Note [LibTorch optimizers over ember's] in
// torch/optim/detail/ember_optimizer.h), LBFGS included, and its schedulers. ember's own
// schedulers that LibTorch 1.13 has no C++ spelling for
// (CosineAnnealingLR, ...) keep ember's names in torch::optim but drive ember's optimizers
// (ember::optim::...), not these.
#pragma once

#include "torch/optim/adagrad.h"
#include "torch/optim/adam.h"
#include "torch/optim/adamw.h"
#include "torch/optim/lbfgs.h"
#include "torch/optim/optimizer.h"
#include "torch/optim/rmsprop.h"
#include "torch/optim/schedulers/lr_scheduler.h"
#include "torch/optim/schedulers/step_lr.h"
#include "torch/optim/sgd.h"
#include "torch/types.h"

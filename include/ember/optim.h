// ember::optim — optimizers and learning-rate schedulers (one include for all of them).
#pragma once

#include "ember/optim/adam.h"
#include "ember/optim/lbfgs.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/rmsprop.h"
#include "ember/optim/sgd.h"
#include "ember/optim/lr_scheduler.h"

// Learning-rate schedulers, as torch.optim.lr_scheduler 1.13: each one sets its optimizer's
// group lrs on construction (the "initial step") and on every step(), with PyTorch's recursive
// (chainable) formulas, so the LR sequences match PyTorch's to rounding and schedulers compose.
// Groups get "initial_lr" on first use; base_lrs come from it.
//
//   optim::StepLR sched(opt, {.step_size = 30, .gamma = 0.1});
//   for (...) { train(); opt.step(); sched.step(); }   sched.get_last_lr();  // one per group
//   optim::SequentialLR s(opt, {.schedulers = {warm, cosine}, .milestones = {50}});
//
// By family, one header each (this one includes them all):
//   lr_scheduler_base.h       the bases LRScheduler and SchedulerWith<Options>; PerGroup
//   lr_scheduler_lambda.h     LambdaLR, MultiplicativeLR (LambdaScheduler), WarmupCosineLR,
//                             WarmupLinearLR
//   lr_scheduler_factor.h     StepLR, MultiStepLR, ConstantLR, LinearLR, ExponentialLR,
//                             PolynomialLR
//   lr_scheduler_annealing.h  CosineAnnealingLR, CosineAnnealingWarmRestarts, CyclicLR,
//                             OneCycleLR
//   lr_scheduler_composite.h  SequentialLR, ChainedScheduler (CompositeScheduler, SchedulerRef)
//   reduce_lr_on_plateau.h    ReduceLROnPlateau
#pragma once

#include "ember/optim/lr_scheduler_annealing.h"
#include "ember/optim/lr_scheduler_base.h"
#include "ember/optim/lr_scheduler_composite.h"
#include "ember/optim/lr_scheduler_factor.h"
#include "ember/optim/lr_scheduler_lambda.h"
#include "ember/optim/reduce_lr_on_plateau.h"

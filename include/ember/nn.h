// ember::nn: Module, the layers, init (functional lives in ember/nn/functional.h).
#pragma once

#include "ember/nn/functional.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/init.h"
#include "ember/nn/layers/attention.h"
#include "ember/nn/layers/activation.h"
#include "ember/nn/layers/container.h"
#include "ember/nn/layers/conv.h"
#include "ember/nn/layers/dropout_embedding.h"
#include "ember/nn/layers/linear.h"
#include "ember/nn/layers/loss.h"
#include "ember/nn/layers/normalization.h"
#include "ember/nn/layers/pooling.h"
#include "ember/nn/layers/rnn.h"
#include "ember/nn/layers/transformer.h"
#include "ember/nn/layers/upsampling.h"
#include "ember/nn/module.h"

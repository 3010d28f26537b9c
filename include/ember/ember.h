// The whole public API of ember.
#pragma once

#include "ember/allocator.h"
#include "ember/creation.h"
#include "ember/cuda.h"
#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/generator.h"
#include "ember/indexing.h"
#include "ember/math.h"
#include "ember/promotion.h"
#include "ember/reduce.h"
#include "ember/scalar.h"
#include "ember/shape.h"
#include "ember/tensor.h"
#include "ember/threads.h"

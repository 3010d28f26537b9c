#include <gtest/gtest.h>
#include <ember/ember.h>
TEST(Smoke, Builds) { EXPECT_EQ(ember::zeros({2, 3}).numel(), 6); }

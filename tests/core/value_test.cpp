// Value / Dict / StateDict: kinds, ordered dicts with string and int keys, errors by message.
#include <gtest/gtest.h>

#include <sstream>

#include "ember/creation.h"
#include "ember/value.h"
#include "test_support.h"

namespace ember {
namespace {

TEST(Value, CheckpointTreeAccess) {
  StateDict sd{{"linear.weight", ones({2, 3})}, {"linear.bias", zeros({2})}};
  Value ck = Dict{{"epoch", 3},
                  {"loss", 0.25},
                  {"config", "adamw"},
                  {"model_state_dict", sd},
                  {"history", List{1, 2.5, true, Value()}},
                  {"shape", Tuple{{int64_t(2), int64_t(3)}}}};
  EXPECT_EQ(ck["epoch"].to_int(), 3);
  EXPECT_EQ(ck["loss"].to_double(), 0.25);
  EXPECT_EQ(ck["epoch"].to_double(), 3.0);  // int -> float, as Python's float()
  EXPECT_EQ(ck["config"].to_string(), "adamw");
  EXPECT_TRUE(ck["history"][3].is_none());
  EXPECT_EQ(ck["history"][-2].to_bool(), true);
  EXPECT_EQ(ck["shape"][1].to_int(), 3);
  StateDict back = ck["model_state_dict"].to_state_dict();
  EXPECT_EQ(back.keys(), (std::vector<std::string>{"linear.weight", "linear.bias"}));
  EXPECT_TRUE(back.at("linear.weight").is_same(sd.at("linear.weight")));
  std::ostringstream os;
  os << ck["history"] << " " << ck["shape"];
  EXPECT_EQ(os.str(), "[1, 2.5, True, None] (2, 3)");
}

TEST(Value, DictKeepsOrderAndIntKeys) {
  Dict d;
  d.insert("b", 1);
  d.insert(int64_t(0), "zero");
  d.insert("a", 2);
  d.insert("b", 3);  // replaced in place
  std::vector<std::string> order;
  for (const auto& [k, v] : d) order.push_back(k.is_string() ? k.to_string() : "#");
  EXPECT_EQ(order, (std::vector<std::string>{"b", "#", "a"}));
  EXPECT_EQ(d.at("b").to_int(), 3);
  EXPECT_EQ(d.at(int64_t(0)).to_string(), "zero");
  EXPECT_FALSE(d.contains(int64_t(1)));
  EXPECT_TRUE(d.erase("a"));
  EXPECT_EQ(d.size(), 2u);
}

TEST(Value, ContainersAreSharedUntilCloned) {
  Value a = Dict{{"x", 1}};
  Value b = a;
  b.to_dict().insert("y", 2);
  EXPECT_TRUE(a.to_dict().contains("y"));
  Value c = a.clone();
  c.to_dict().insert("z", 3);
  EXPECT_FALSE(a.to_dict().contains("z"));
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == c);
}

TEST(Value, ErrorsNameTheKinds) {
  Value v = Dict{{"epoch", 3}};
  EXPECT_ERROR(v["epoch"].to_string(), "expected a string but the value is a int");
  EXPECT_ERROR(v["missing"], "no key 'missing'");
  EXPECT_ERROR(Value(List{1})[5], "index 5 is out of range");
  EXPECT_ERROR(Value(Dict{{"w", 1}}).to_state_dict(), "expected tensor values, but 'w' is a int");
  EXPECT_ERROR(StateDict().at("w"), "no key 'w'");
}

}  // namespace
}  // namespace ember

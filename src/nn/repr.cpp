// Python's float repr for the layers' extra_repr ("0.1", "1.0", "1e-05"): the shortest string
// that round-trips, with ".0" on integral values and a two-digit exponent; tuples of ints
// and floats as Python prints them ("(3,)" for one element).
#include <charconv>
#include <cmath>
#include <string>

#include "ember/nn/layers/activation.h"

namespace ember::nn::detail {

std::string python_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const double a = std::fabs(v);
  // Python switches to exponent notation below 1e-4 and from 1e16.
  const bool sci = a != 0 && (a < 1e-4 || a >= 1e16);
  auto r = std::to_chars(buf, buf + sizeof buf, v,
                         sci ? std::chars_format::scientific : std::chars_format::fixed);
  std::string s(buf, r.ptr);
  if (sci) {
    const auto e = s.find('e');
    std::string mant = s.substr(0, e), exp = s.substr(e + 1);
    const char sign = exp[0] == '-' ? '-' : '+';
    if (exp[0] == '-' || exp[0] == '+') exp = exp.substr(1);
    if (exp.size() < 2) exp = "0" + exp;
    return mant + "e" + sign + exp;
  }
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

std::string python_tuple(const std::vector<int64_t>& v) {
  std::string out = "(";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + (v.size() == 1 ? ",)" : ")");
}

std::string python_tuple(const std::vector<double>& v) {
  std::string out = "(";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + python_float(v[i]);
  return out + (v.size() == 1 ? ",)" : ")");
}

}  // namespace ember::nn::detail

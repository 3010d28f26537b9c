// Tensor methods that LibTorch has and ember spells as free functions: the random fills
// (t.uniform_(a, b), t.normal_(mean, std), ...; Note [in-place on a const handle] in tensor.h)
// and t.allclose(other). Each calls the free function.
#include "ember/creation.h"
#include "ember/math.h"

namespace ember {

Tensor& Tensor::uniform_(double from, double to, Generator* gen) const {
  return ember::uniform_(mut(), from, to, gen);
}
Tensor& Tensor::normal_(double mean, double std, Generator* gen) const {
  return ember::normal_(mut(), mean, std, gen);
}
Tensor& Tensor::bernoulli_(double p, Generator* gen) const {
  return ember::bernoulli_(mut(), p, gen);
}
Tensor& Tensor::random_(int64_t from, int64_t to, Generator* gen) const {
  return ember::random_(mut(), from, to, gen);
}
Tensor& Tensor::exponential_(double lambd, Generator* gen) const {
  return ember::exponential_(mut(), lambd, gen);
}
Tensor Tensor::multinomial(int64_t num_samples, bool replacement, Generator* gen) const {
  return ember::multinomial(*this, num_samples, replacement, gen);
}
bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::allclose(*this, other, rtol, atol, equal_nan);
}

}  // namespace ember

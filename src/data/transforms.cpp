// Image transforms. Each works on a contiguous copy with plain loops (row memcpy for the geometric
// ones, any dtype), since per-sample tensor-op chains would dominate the loader's cost on 28x28
// images. Random choices draw from worker_generator() in torchvision's order of draws.
#include "ember/data/transforms.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ember/creation.h"
#include "ember/data/worker.h"
#include "ember/error.h"

namespace ember::data::transforms {

namespace {

void check_image(const char* op, const Tensor& image) {
  EMBER_CHECK(image.defined() && image.dim() >= 2, op,
              "expected an image tensor of shape (..., H, W), got ",
              image.defined() ? image.dim() : 0, " dims");
}

// torch.rand(1) (a float with 24 random bits) and randint(0, n) on the worker's generator.
float draw_uniform() { return float(worker_generator().random() & ((1u << 24) - 1)) * 0x1p-24f; }
int64_t draw_int(int64_t n) { return int64_t(worker_generator().random() % uint64_t(n)); }

// Copies the (h, w) window at (top, left) of every (H, W) plane of `in` into `out`'s planes at
// (dst_top, dst_left); `out` is already filled. Shapes (..., H, W) and (..., OH, OW).
void copy_window(const Tensor& in, Tensor& out, int64_t top, int64_t left, int64_t dst_top,
                 int64_t dst_left, int64_t h, int64_t w) {
  if (h <= 0 || w <= 0) return;
  const int64_t H = in.size(-2), W = in.size(-1), OH = out.size(-2), OW = out.size(-1);
  const int64_t planes = in.numel() / std::max<int64_t>(H * W, 1);
  const size_t es = in.element_size();
  const auto* src = static_cast<const uint8_t*>(in.data_ptr());
  auto* dst = static_cast<uint8_t*>(out.data_ptr());
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t y = 0; y < h; ++y) {
      std::memcpy(dst + ((p * OH + dst_top + y) * OW + dst_left) * es,
                  src + ((p * H + top + y) * W + left) * es, size_t(w) * es);
    }
  }
}

template <size_t Bytes>
void flip_rows(const uint8_t* src, uint8_t* dst, int64_t rows, int64_t w) {
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* s = src + r * w * Bytes;
    uint8_t* d = dst + r * w * Bytes;
    for (int64_t x = 0; x < w; ++x) std::memcpy(d + x * Bytes, s + (w - 1 - x) * Bytes, Bytes);
  }
}

}  // namespace

Tensor ToTensor::operator()(const Tensor& image) const {
  const char* op = "ToTensor";
  EMBER_CHECK(image.defined() && (image.dim() == 2 || image.dim() == 3), op,
              "expected an image of shape (H, W) or (C, H, W), got ",
              image.defined() ? image.dim() : 0, " dims");
  const Tensor c = image.dim() == 2 ? image.unsqueeze(0).contiguous() : image.contiguous();
  if (c.dtype() != kUInt8) {
    EMBER_CHECK(is_floating_point(c.dtype()), op, "expected uint8 or floating pixels, got ",
                c.dtype());
    return c.to(kFloat32, /*copy=*/true);
  }
  Tensor out = empty(c.sizes(), {.dtype = kFloat32});
  const uint8_t* in = c.data_ptr<uint8_t>();
  float* o = out.data_ptr<float>();
  const int64_t n = c.numel();
  for (int64_t i = 0; i < n; ++i) o[i] = float(in[i]) * (1.0f / 255.0f);
  return out;
}

Normalize::Normalize(std::vector<double> mean, std::vector<double> std, bool inplace)
    : inplace_(inplace) {
  EMBER_CHECK(!mean.empty() && mean.size() == std.size(), "Normalize",
              "expected mean and std of the same non-zero length, got ", mean.size(), " and ",
              std.size());
  for (size_t i = 0; i < mean.size(); ++i) {
    EMBER_CHECK(float(std[i]) != 0.0f, "Normalize",
                "std evaluated to zero after conversion to float32, leading to division by zero.");
    mean_.push_back(float(mean[i]));
    inv_std_.push_back(float(1.0 / std[i]));
  }
}

Tensor Normalize::operator()(const Tensor& image) const {
  const char* op = "Normalize";
  EMBER_CHECK(image.defined() && image.dim() >= 3, op,
              "expected a tensor image of shape (..., C, H, W), got ",
              image.defined() ? image.dim() : 0, " dims");
  EMBER_CHECK(image.dtype() == kFloat32, op, "expected a float32 tensor (apply ToTensor first), got ",
              image.dtype());
  const int64_t C = image.size(-3), plane = image.size(-2) * image.size(-1);
  const size_t nc = mean_.size();
  EMBER_CHECK(nc == 1 || int64_t(nc) == C, op, "mean and std have ", nc, " values for ", C,
              " channels");
  Tensor out = inplace_ && image.is_contiguous() ? image : image.contiguous().clone();
  float* p = out.data_ptr<float>();
  const int64_t planes = out.numel() / std::max<int64_t>(plane, 1);
  for (int64_t q = 0; q < planes; ++q) {
    const size_t c = nc == 1 ? 0 : size_t(q % C);
    const float m = mean_[c], s = inv_std_[c];
    float* x = p + q * plane;
    for (int64_t i = 0; i < plane; ++i) x[i] = (x[i] - m) * s;
  }
  if (inplace_ && !image.is_contiguous()) const_cast<Tensor&>(image).copy_(out);
  return out;
}

Tensor RandomHorizontalFlip::operator()(const Tensor& image) const {
  check_image("RandomHorizontalFlip", image);
  if (!(draw_uniform() < p_)) return image;
  const Tensor c = image.contiguous();
  Tensor out = empty(c.sizes(), {.dtype = c.dtype()});
  const int64_t w = c.size(-1), rows = c.numel() / std::max<int64_t>(w, 1);
  const auto* src = static_cast<const uint8_t*>(c.data_ptr());
  auto* dst = static_cast<uint8_t*>(out.data_ptr());
  switch (c.element_size()) {
    case 1: flip_rows<1>(src, dst, rows, w); break;
    case 2: flip_rows<2>(src, dst, rows, w); break;
    case 4: flip_rows<4>(src, dst, rows, w); break;
    case 8: flip_rows<8>(src, dst, rows, w); break;
    default: fail("RandomHorizontalFlip", "unsupported dtype ", c.dtype());
  }
  return out;
}

RandomCrop::RandomCrop(std::array<int64_t, 2> size, RandomCropOptions options)
    : size_(size), options_(options) {
  EMBER_CHECK(size[0] > 0 && size[1] > 0, "RandomCrop", "crop size must be positive, got (",
              size[0], ", ", size[1], ")");
  EMBER_CHECK(options.padding >= 0, "RandomCrop", "padding must be non-negative, got ",
              options.padding);
}

Tensor RandomCrop::operator()(const Tensor& image) const {
  check_image("RandomCrop", image);
  const Tensor c = image.contiguous();
  const int64_t H = c.size(-2), W = c.size(-1);
  int64_t pad_t = options_.padding, pad_l = options_.padding;
  int64_t ph = H + 2 * options_.padding, pw = W + 2 * options_.padding;
  if (options_.pad_if_needed) {  // pad both sides by the missing amount, as torchvision
    if (ph < size_[0]) pad_t += size_[0] - ph, ph += 2 * (size_[0] - ph);
    if (pw < size_[1]) pad_l += size_[1] - pw, pw += 2 * (size_[1] - pw);
  }
  const auto [th, tw] = size_;
  EMBER_CHECK(th <= ph && tw <= pw, "RandomCrop", "Required crop size (", th, ", ", tw,
              ") is larger than input image size (", ph, ", ", pw, ")");
  // torchvision's get_params: i = randint(0, h - th + 1), then j = randint(0, w - tw + 1).
  const int64_t i = draw_int(ph - th + 1), j = draw_int(pw - tw + 1);
  std::vector<int64_t> out_sizes(c.sizes().begin(), c.sizes().end());
  out_sizes[out_sizes.size() - 2] = th;
  out_sizes.back() = tw;
  Tensor out = full(out_sizes, options_.fill, {.dtype = c.dtype()});
  // The window [i, i + th) x [j, j + tw) of the padded image, mapped back to the source.
  const int64_t y0 = std::max(i - pad_t, int64_t(0)), y1 = std::min(i + th - pad_t, H);
  const int64_t x0 = std::max(j - pad_l, int64_t(0)), x1 = std::min(j + tw - pad_l, W);
  copy_window(c, out, y0, x0, y0 + pad_t - i, x0 + pad_l - j, y1 - y0, x1 - x0);
  return out;
}

RandomAffine::RandomAffine(RandomAffineOptions options) : options_(options) {
  for (double t : options.translate) {
    EMBER_CHECK(t >= 0 && t <= 1, "RandomAffine", "translation values should be between 0 and 1, "
                "got ", t);
  }
}

Tensor RandomAffine::operator()(const Tensor& image) const {
  check_image("RandomAffine", image);
  const Tensor c = image.contiguous();
  const int64_t H = c.size(-2), W = c.size(-1);
  // torchvision draws the angle first (uniform over (0, 0) here), then tx, then ty.
  (void)draw_uniform();
  auto shift = [](double max_d) {
    const double u = draw_uniform();
    return int64_t(std::nearbyint(-max_d + u * 2 * max_d));
  };
  const int64_t tx = shift(options_.translate[0] * double(W));
  const int64_t ty = shift(options_.translate[1] * double(H));
  if (tx == 0 && ty == 0) return image;
  Tensor out = full(c.sizes(), options_.fill, {.dtype = c.dtype()});
  // out[y][x] = in[y - ty][x - tx]: the image moves right by tx and down by ty.
  const int64_t y0 = std::max(-ty, int64_t(0)), y1 = std::min(H - ty, H);
  const int64_t x0 = std::max(-tx, int64_t(0)), x1 = std::min(W - tx, W);
  copy_window(c, out, y0, x0, y0 + ty, x0 + tx, y1 - y0, x1 - x0);
  return out;
}

Transform Compose(std::vector<Transform> transforms) {
  for (const auto& t : transforms) {
    EMBER_CHECK(bool(t), "Compose", "got an empty transform");
  }
  return [ts = std::move(transforms)](const Tensor& image) {
    Tensor x = image;
    for (const auto& t : ts) x = t(x);
    return x;
  };
}

Transform Lambda(std::function<Tensor(const Tensor&)> fn) {
  EMBER_CHECK(bool(fn), "Lambda", "got an empty function");
  return fn;
}

}  // namespace ember::data::transforms

// Matrix products on the CPU. float32/float64 go to OpenBLAS with the transpose flags read off
// the strides (Note [BLAS layouts]); float16/bfloat16 are computed in float32 and rounded once,
// as PyTorch's CPU kernels do (Note [Reduced-precision GEMM]); integers use a plain loop with
// wrapping arithmetic.
#include "backend/cpu/blas.h"

#include <cblas.h>
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <type_traits>
#include <vector>

#include "backend/buffers.h"
#include "backend/cpu/cpu_features.h"
#include "backend/cpu/dispatch.h"
#include "backend/cpu/half_convert.h"
#include "backend/cpu/kernels.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace ember::cpu {
namespace {

// Note [BLAS layouts]
// BLAS reads a row-major (rows, cols) matrix with a leading dimension ld >= cols and unit column
// stride (NoTrans), or the transpose of one: unit row stride and ld = column stride (Trans).
// Every ember matrix with one unit stride is one of the two, so a transposed or sliced operand
// (x.t(), x[:, :k]) goes to BLAS as it is; only a matrix with no unit stride at all (a strided
// slice, a broadcast row) is copied. The stride of a size-1 dim is never read, so it is ignored.
struct Layout {
  bool ok = false;
  CBLAS_TRANSPOSE trans = CblasNoTrans;
  blasint ld = 1;
};

Layout blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  Layout l;
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= std::max<int64_t>(cols, 1))) {
    l = {true, CblasNoTrans, 0};
    const int64_t ld = rows == 1 ? std::max<int64_t>(cols, 1) : rs;
    l.ld = blasint(ld);
    l.ok = ld <= INT_MAX;
  } else if ((rows == 1 || rs == 1) && (cols == 1 || cs >= std::max<int64_t>(rows, 1))) {
    l = {true, CblasTrans, 0};
    const int64_t ld = cols == 1 ? std::max<int64_t>(rows, 1) : cs;
    l.ld = blasint(ld);
    l.ok = ld <= INT_MAX;
  }
  return l;
}

Layout matrix_layout(const Tensor& t) {  // t (B, rows, cols)
  return blas_layout(t.size(1), t.size(2), t.stride(1), t.stride(2));
}

template <class T>
void blas_gemm_call(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k,
                    T alpha, const T* a, blasint lda, const T* b, blasint ldb, T beta, T* c,
                    blasint ldc) {
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// y (len) = alpha * op(stored) @ x + beta * y, where `stored` is row-major (rows, cols).
template <class T>
void blas_gemv_call(CBLAS_TRANSPOSE t, blasint rows, blasint cols, T alpha, const T* a, blasint lda,
                    const T* x, blasint incx, T beta, T* y, blasint incy, blasint len) {
  // beta == 0 must not read y (it may be uninitialised); not every OpenBLAS scal kernel
  // guarantees that, so clear y here.
  if (beta == T(0))
    for (blasint i = 0; i < len; ++i) y[int64_t(i) * incy] = T(0);
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemv(CblasRowMajor, t, rows, cols, alpha, a, lda, x, incx, beta, y, incy);
  else
    cblas_dgemv(CblasRowMajor, t, rows, cols, alpha, a, lda, x, incx, beta, y, incy);
}

bool fits_blas(int64_t v) { return v <= INT_MAX; }

// Below this many multiply-adds per matrix a batch is spread over threads, each running
// single-threaded BLAS, instead of running the matrices one after another with threaded BLAS:
// threading one small GEMM costs more than it saves (bench/linalg_bench.cpp, bmm cases).
constexpr int64_t kBatchParallelMacs = int64_t(1) << 22;
// ... but only when the whole batch is worth threading: OpenBLAS's own bar for threading a GEMM.
constexpr int64_t kMinParallelMacs = int64_t(1) << 18;

template <class T>
void blas_gemm(Tensor a, Tensor b, Tensor c, T alpha, T beta) {  // c: a handle, written through
  const int64_t batch = c.size(0), M = c.size(1), N = c.size(2), K = a.size(2);
  Layout la = matrix_layout(a), lb = matrix_layout(b);
  const Layout lc = matrix_layout(c);
  if (!la.ok) a = a.contiguous(), la = matrix_layout(a);
  if (!lb.ok) b = b.contiguous(), lb = matrix_layout(b);
  if (!lc.ok || lc.trans != CblasNoTrans || !fits_blas(M) || !fits_blas(N) || !fits_blas(K)) {
    EMBER_CHECK(fits_blas(M) && fits_blas(N) && fits_blas(K), "matmul",
                "matrix dims must be below 2^31 for BLAS, got ", M, "x", K, " and ", K, "x", N);
    // An output BLAS cannot write in place: compute into a fresh matrix and copy back.
    Tensor tmp = backend::new_buffer(c.sizes(), c.dtype(), c.device());
    if (beta != T(0)) tmp.copy_(c);
    blas_gemm<T>(a, b, tmp, alpha, beta);
    c.copy_(tmp);
    return;
  }
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  T* pc = static_cast<T*>(c.data_ptr());
  const int64_t sa = a.stride(0), sb = b.stride(0), sc = c.stride(0);
  const blasint m = blasint(M), n = blasint(N), k = blasint(K);

  auto one = [&](int64_t i) {
    const T* ai = pa + i * sa;
    const T* bi = pb + i * sb;
    T* ci = pc + i * sc;
    if (N == 1) {
      // (M, K) @ (K, 1): x is b's column, y is c's column.
      const blasint incx = blasint(K > 1 ? b.stride(1) : 1),
                    incy = blasint(M > 1 ? c.stride(1) : 1);
      if (la.trans == CblasNoTrans)
        blas_gemv_call<T>(CblasNoTrans, m, k, alpha, ai, la.ld, bi, incx, beta, ci, incy, m);
      else
        blas_gemv_call<T>(CblasTrans, k, m, alpha, ai, la.ld, bi, incx, beta, ci, incy, m);
    } else if (M == 1) {
      // (1, K) @ (K, N) as c^T = b^T a^T: x is a's row, y is c's row.
      const blasint incx = blasint(K > 1 ? a.stride(2) : 1), incy = blasint(c.stride(2));
      if (lb.trans == CblasNoTrans)
        blas_gemv_call<T>(CblasTrans, k, n, alpha, bi, lb.ld, ai, incx, beta, ci, incy, n);
      else
        blas_gemv_call<T>(CblasNoTrans, n, k, alpha, bi, lb.ld, ai, incx, beta, ci, incy, n);
    } else {
      blas_gemm_call<T>(la.trans, lb.trans, m, n, k, alpha, ai, la.ld, bi, lb.ld, beta, ci, lc.ld);
    }
  };

  const int threads = get_num_threads();
  const int64_t macs = M * N * K;
  if (batch > 1 && threads > 1 && macs <= kBatchParallelMacs && batch * macs >= kMinParallelMacs &&
      !omp_in_parallel()) {
    // Inside the parallel region OpenBLAS's OpenMP build runs single-threaded.
    parallel_for(0, batch, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t i = b0; i < b1; ++i) one(i);
    });
  } else {
    sync_blas_threads();
    for (int64_t i = 0; i < batch; ++i) one(i);
  }
}

// Integer product with wrapping arithmetic in uint64_t: the result modulo 2^bits of T is what
// accumulating in T would give, without signed-overflow UB.
template <class T>
void int_gemm(const Tensor& a, const Tensor& b, const Tensor& c, Scalar alpha, Scalar beta) {
  using U = uint64_t;
  const int64_t M = c.size(1), N = c.size(2), K = a.size(2);
  const U al = U(alpha.to<int64_t>()), be = U(beta.to<int64_t>());
  const bool beta_zero = beta.to<int64_t>() == 0;
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  T* pc = static_cast<T*>(c.data_ptr());
  const int64_t sa0 = a.stride(0), sa1 = a.stride(1), sa2 = a.stride(2);
  const int64_t sb0 = b.stride(0), sb1 = b.stride(1), sb2 = b.stride(2);
  const int64_t sc0 = c.stride(0), sc1 = c.stride(1), sc2 = c.stride(2);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * K));
  parallel_for(0, c.size(0) * M, grain, [&](int64_t r0, int64_t r1) {
    std::vector<U> acc(static_cast<size_t>(N));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t bi = r / M, i = r % M;
      std::fill(acc.begin(), acc.end(), U(0));
      const T* arow = pa + bi * sa0 + i * sa1;
      for (int64_t k = 0; k < K; ++k) {
        const U av = U(int64_t(arow[k * sa2]));
        if (av == 0) continue;
        const T* brow = pb + bi * sb0 + k * sb1;
        for (int64_t j = 0; j < N; ++j) acc[j] += av * U(int64_t(brow[j * sb2]));
      }
      T* crow = pc + bi * sc0 + i * sc1;
      for (int64_t j = 0; j < N; ++j) {
        U v = al * acc[j];
        if (!beta_zero) v += be * U(int64_t(crow[j * sc2]));
        crow[j * sc2] = T(int64_t(v));
      }
    }
  });
}

// Note [Reduced-precision GEMM]
// float16 and bfloat16 products accumulate in float32 and round to the output dtype once. Three
// paths, chosen once at run time (reduced_gemm_path says which one runs):
//  - oneDNN: bfloat16 on a CPU with AVX512-BF16 or AMX-BF16, at the avx512 level, when
//    libdnnl.so loads. Its dnnl_gemm_bf16bf16f32 (a JIT kernel of vdpbf16ps, what PyTorch's
//    CPU matmul reaches through oneDNN) takes the bfloat16 operands as they are, with the layouts
//    of Note [BLAS layouts]: no conversion pass. The symbol is looked up by name at the first
//    such product (libdnnl.so is linked now, for the convolution primitives of conv_onednn.cpp,
//    so dlopen finds the loaded copy; linking it costs a program's start about 1-2 ms on a
//    2-core Zen 5). Like every vdpbf16ps kernel it reads subnormal bfloat16 inputs as zero.
//  - sbgemm: the same, through OpenBLAS's cblas_sbgemm, when oneDNN is missing and the loaded
//    OpenBLAS exports it (built with BUILD_BFLOAT16: Debian 12's 0.3.21 is not, its cblas.h
//    declares the function but the library has no such symbol).
//  - convert: each operand is converted to float32 once (F16C for float16 where present, in its
//    own memory order so a transposed operand stays a BLAS transpose, a broadcast batch once),
//    then sgemm. float16 always, and bfloat16 on CPUs without bfloat16 dot products (where both
//    libraries' kernels emulate them, slower than this) or below the avx512 level.
// Each bfloat16 path is a row-major c (M, N) float32 = alpha * op(a) @ op(b) + beta * c.
using Bf16GemmFn = void (*)(Layout la, Layout lb, int64_t M, int64_t N, int64_t K, float alpha,
                            const bfloat16* a, const bfloat16* b, float beta, float* c);

// A symbol of a library opened on first use; null where the library or the symbol is missing.
template <class Fn>
Fn find_symbol(std::initializer_list<const char*> libraries, const char* name) {
  for (const char* library : libraries) {
    void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) continue;
    if (void* sym = dlsym(handle, name)) return reinterpret_cast<Fn>(sym);  // open for good
    dlclose(handle);
  }
  return nullptr;
}

// oneDNN exports this C function from libdnnl.so (1.x to 3.x, the same signature; its own tests
// and Intel's TensorFlow extension declare it, as here: dnnl.h does not). Its status 0 is success.
using DnnlGemmBf16 = int (*)(char transa, char transb, int64_t M, int64_t N, int64_t K, float alpha,
                             const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb,
                             float beta, float* c, int64_t ldc);
using CblasSbgemm = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint,
                             blasint, float, const bfloat16*, blasint, const bfloat16*, blasint,
                             float, float*, blasint);

DnnlGemmBf16 dnnl_gemm() {
  static const DnnlGemmBf16 fn =
      find_symbol<DnnlGemmBf16>({"libdnnl.so.3", "libdnnl.so.2"}, "dnnl_gemm_bf16bf16f32");
  return fn;
}

CblasSbgemm cblas_sbgemm_symbol() {
  static const CblasSbgemm fn = reinterpret_cast<CblasSbgemm>(dlsym(RTLD_DEFAULT, "cblas_sbgemm"));
  return fn;
}

// Below this many multiply-adds oneDNN's gemm is faster on one thread than on two (Zen 5, square
// products: 64^3 4.2 vs 10.7 us, 128^3 17 vs 25 us, 192^3 47 vs 40 us), so it gets one.
constexpr double kThreadedBf16Macs = 4e6;

void run_onednn_gemm(char ta, char tb, int64_t M, int64_t N, int64_t K, float alpha,
                     const bfloat16* a, int64_t lda, const bfloat16* b, int64_t ldb, float beta,
                     float* c, int64_t ldc) {
  // oneDNN's OpenMP build sizes its team from the calling thread's omp_get_max_threads().
  const bool one_thread = double(M) * double(N) * double(K) < kThreadedBf16Macs;
  const int team = omp_get_max_threads();
  if (one_thread) omp_set_num_threads(1);
  const int status = dnnl_gemm()(ta, tb, M, N, K, alpha, reinterpret_cast<const uint16_t*>(a), lda,
                                 reinterpret_cast<const uint16_t*>(b), ldb, beta, c, ldc);
  if (one_thread) omp_set_num_threads(team);
  EMBER_CHECK(status == 0, "matmul", "oneDNN's dnnl_gemm_bf16bf16f32 failed with status ",
              int(status), " on bfloat16 ", M, "x", K, " @ ", K, "x", N);
}

void onednn_bf16_gemm(Layout la, Layout lb, int64_t M, int64_t N, int64_t K, float alpha,
                      const bfloat16* a, const bfloat16* b, float beta, float* c) {
  auto flag = [](const Layout& l) { return l.trans == CblasTrans ? 'T' : 'N'; };
  run_onednn_gemm(flag(la), flag(lb), M, N, K, alpha, a, la.ld, b, lb.ld, beta, c, N);
}

void openblas_bf16_gemm(Layout la, Layout lb, int64_t M, int64_t N, int64_t K, float alpha,
                        const bfloat16* a, const bfloat16* b, float beta, float* c) {
  cblas_sbgemm_symbol()(CblasRowMajor, la.trans, lb.trans, blasint(M), blasint(N), blasint(K),
                        alpha, a, la.ld, b, lb.ld, beta, c, blasint(N));
}

Bf16GemmFn bf16_gemm() {
  static const Bf16GemmFn fn = [] {
    // The level, not only the CPU: EMBER_CPU_CAPABILITY=avx2 asks for no AVX-512 code.
    const Bf16GemmLibraries found{.onednn = dnnl_gemm() != nullptr,
                                  .sbgemm = cblas_sbgemm_symbol() != nullptr};
    switch (choose_reduced_gemm_path(kBFloat16, cpu_features(), cpu_level().needs, found)) {
      case ReducedGemmPath::kOnednn:
        return &onednn_bf16_gemm;
      case ReducedGemmPath::kSbgemm:
        return &openblas_bf16_gemm;
      case ReducedGemmPath::kConvert:
        break;
    }
    return Bf16GemmFn(nullptr);
  }();
  return fn;
}

// t (B, R, C) as float32, in t's memory order where t is dense row- or column-major per matrix.
template <class T>
Tensor to_float_matrices(const Tensor& t) {
  Tensor src = t;
  const bool broadcast_batch = t.size(0) > 1 && t.stride(0) == 0;
  if (broadcast_batch) src = t.narrow(0, 0, 1);
  bool transposed = false;
  if (!src.is_contiguous()) {
    if (src.transpose(1, 2).is_contiguous()) {
      src = src.transpose(1, 2);
      transposed = true;
    } else {
      src = src.contiguous();
    }
  }
  Tensor out = backend::new_buffer(src.sizes(), kFloat32);
  to_float(static_cast<const T*>(src.data_ptr()), out.data_ptr<float>(), src.numel());
  if (transposed) out = out.transpose(1, 2);
  if (broadcast_batch) out = out.expand(t.sizes());
  return out;
}

template <class T>
void store_rounded(const Tensor& cf, Tensor c) {  // cf contiguous float32, c of dtype T
  if (c.is_contiguous())
    from_float(cf.data_ptr<float>(), static_cast<T*>(c.data_ptr()), c.numel());
  else
    c.copy_(cf);
}

void bf16_gemm_batches(Bf16GemmFn fn, Tensor a, Tensor b, const Tensor& cf, float alpha,
                       float beta) {
  const int64_t batch = cf.size(0), M = cf.size(1), N = cf.size(2), K = a.size(2);
  Layout la = matrix_layout(a), lb = matrix_layout(b);
  if (!la.ok) a = a.contiguous(), la = matrix_layout(a);
  if (!lb.ok) b = b.contiguous(), lb = matrix_layout(b);
  const auto* pa = static_cast<const bfloat16*>(a.data_ptr());
  const auto* pb = static_cast<const bfloat16*>(b.data_ptr());
  float* pc = cf.data_ptr<float>();
  sync_blas_threads();
  for (int64_t i = 0; i < batch; ++i)
    fn(la, lb, M, N, K, alpha, pa + i * a.stride(0), pb + i * b.stride(0), beta, pc + i * M * N);
}

// Note [Small reduced-precision GEMM]
// Up to kSmallReducedMacs multiply-adds in all, the convert path's three float32 buffers and
// BLAS's fixed cost are most of a float16/bfloat16 product (a 4x4 a @ b under autocast is
// bench/ember_ops.cpp's amp_matmul_16elem). There each operand matrix is widened while it is
// copied into a float32 block on the stack (the cast fused into the packing, any strides) and
// each output is accumulated over k in order, in float32, and rounded once: the arithmetic of
// the other paths (OpenBLAS's kernels also accumulate each output over k in order below their
// k-block), so a product does not change with the path.
constexpr int64_t kSmallReducedMacs = 4096;

// dst (rows, cols) row-major = float(src (rows, cols) with strides rs, cs).
template <class T>
void widen_block(const T* src, int64_t rows, int64_t cols, int64_t rs, int64_t cs, float* dst) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) dst[r * cols + j] = float(src[r * rs + j * cs]);
}

// x * y + z rounded once where the CPU has FMA, as OpenBLAS's kernels do it there.
inline float multiply_add(float x, float y, float z) {
#ifdef __FP_FAST_FMAF
  return std::fma(x, y, z);
#else
  return x * y + z;
#endif
}

template <class T>
void small_reduced_gemm(const Tensor& a, const Tensor& b, const Tensor& c, float alpha,
                        float beta) {
  const IntArrayRef as = a.strides(), bs = b.strides(), cs = c.strides();
  const int64_t batch = c.sizes()[0], M = c.sizes()[1], N = c.sizes()[2], K = a.sizes()[2];
  // M*K, K*N and M*N are each at most the product's multiply-adds.
  float fa[kSmallReducedMacs], fb[kSmallReducedMacs], acc[kSmallReducedMacs];
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  T* pc = static_cast<T*>(c.data_ptr());
  for (int64_t i = 0; i < batch; ++i) {
    widen_block(pa + i * as[0], M, K, as[1], as[2], fa);
    widen_block(pb + i * bs[0], K, N, bs[1], bs[2], fb);
    std::fill(acc, acc + M * N, 0.0f);
    for (int64_t r = 0; r < M; ++r)
      for (int64_t k = 0; k < K; ++k) {
        const float x = fa[r * K + k];
        for (int64_t j = 0; j < N; ++j) acc[r * N + j] = multiply_add(x, fb[k * N + j], acc[r * N + j]);
      }
    T* ci = pc + i * cs[0];
    for (int64_t r = 0; r < M; ++r)
      for (int64_t j = 0; j < N; ++j) {
        T& out = ci[r * cs[1] + j * cs[2]];
        const float scaled = alpha * acc[r * N + j];
        out = T(beta == 0 ? scaled : beta * float(out) + scaled);
      }
  }
}

template <class T>
void reduced_gemm(const Tensor& a, const Tensor& b, const Tensor& c, float alpha, float beta) {
  if (double(c.size(0)) * double(c.size(1)) * double(c.size(2)) * double(a.size(2)) <=
      double(kSmallReducedMacs))
    return small_reduced_gemm<T>(a, b, c, alpha, beta);
  EMBER_CHECK(fits_blas(c.size(1)) && fits_blas(c.size(2)) && fits_blas(a.size(2)), "matmul",
              "matrix dims must be below 2^31 for BLAS, got ", c.size(1), "x", a.size(2),
              " and ", a.size(2), "x", c.size(2));
  Tensor cf = beta == 0 ? backend::new_buffer(c.sizes(), kFloat32) : c.to(kFloat32).contiguous();
  if (std::is_same_v<T, BFloat16> && bf16_gemm()) {
    bf16_gemm_batches(bf16_gemm(), a, b, cf, alpha, beta);
  } else {
    blas_gemm<float>(to_float_matrices<T>(a), to_float_matrices<T>(b), cf, alpha, beta);
  }
  store_rounded<T>(cf, c);
}

}  // namespace

void sync_blas_threads() {
  if (omp_in_parallel()) return;
  const int n = get_num_threads();
  // OpenBLAS's OpenMP build sizes its team from the calling thread's omp_get_max_threads() and
  // resets its own count to that, so both are set: the ICV (per thread) and OpenBLAS's count.
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
  if (openblas_get_num_threads() != n) openblas_set_num_threads(n);
}

void gemm(const Tensor& a, const Tensor& b, const Tensor& out, Scalar alpha, Scalar beta) {
  Tensor c = out;  // a second handle: the in-place methods are non-const
  const int64_t batch = c.size(0), M = c.size(1), N = c.size(2), K = a.size(2);
  if (batch == 0 || M == 0 || N == 0) return;
  const bool beta_zero = beta.to_double() == 0;
  if (K == 0) {  // an empty sum: c = beta * c
    if (beta_zero)
      c.zero_();
    else if (beta.to_double() != 1)
      c.mul_(beta);
    return;
  }
  dispatch<DtypeSet::Numeric>(c.dtype(), "matmul", [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      blas_gemm<T>(a, b, c, alpha.to<T>(), beta.to<T>());
    } else if constexpr (is_half_v<T>) {
      reduced_gemm<T>(a, b, c, alpha.to<float>(), beta_zero ? 0.0f : beta.to<float>());
    } else {
      int_gemm<T>(a, b, c, alpha, beta);
    }
  });
}

ReducedGemmPath choose_reduced_gemm_path(Dtype dtype, const CpuFeatures& cpu,
                                         const CpuFeatures& level, Bf16GemmLibraries found) {
  const bool bf16_dot_products = (cpu.avx512_bf16 || cpu.amx_bf16) && level.avx512f;
  if (dtype != kBFloat16 || !bf16_dot_products) return ReducedGemmPath::kConvert;
  if (found.onednn) return ReducedGemmPath::kOnednn;
  if (found.sbgemm) return ReducedGemmPath::kSbgemm;
  return ReducedGemmPath::kConvert;
}

// Below this reduction oneDNN's kernel, which takes K in pairs and blocks it for vdpbf16ps, is
// mostly overhead: conv 1 -> 32 (K = 9) forward stays on the flat float32 kernel.
constexpr int64_t kMinDotConvReduction = 32;

// Only oneDNN's path: OpenBLAS's sbgemm is missing from Debian's OpenBLAS, so a convolution on
// it could not be measured or tested here.
bool choose_bf16_dot_conv(Dtype dtype, ReducedGemmPath path, int64_t reduction) {
  return dtype == kBFloat16 && path == ReducedGemmPath::kOnednn &&
         reduction >= kMinDotConvReduction;
}

ReducedGemmPath bf16_gemm_path() {
  const Bf16GemmFn fn = bf16_gemm();
  return fn == &onednn_bf16_gemm   ? ReducedGemmPath::kOnednn
         : fn == &openblas_bf16_gemm ? ReducedGemmPath::kSbgemm
                                     : ReducedGemmPath::kConvert;
}

bool bf16_dot_conv(int64_t reduction) {
  return choose_bf16_dot_conv(kBFloat16, bf16_gemm_path(), reduction);
}

void bf16_dot_gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const BFloat16* a,
                   int64_t lda, const BFloat16* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  sync_blas_threads();  // oneDNN threads like OpenBLAS: from omp_get_max_threads()
  run_onednn_gemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, N, K, 1.0f,
                  reinterpret_cast<const bfloat16*>(a), lda, reinterpret_cast<const bfloat16*>(b),
                  ldb, beta, c, ldc);
}

std::string reduced_gemm_path(Dtype dtype) {
  const std::string small = "; up to " + std::to_string(kSmallReducedMacs) +
                            " multiply-adds: widened while packed, no BLAS";
  if (dtype == kBFloat16 && bf16_gemm() == &onednn_bf16_gemm)
    return "oneDNN dnnl_gemm_bf16bf16f32 (avx512_bf16/amx_bf16)" + small;
  if (dtype == kBFloat16 && bf16_gemm() == &openblas_bf16_gemm)
    return "sbgemm (OpenBLAS, avx512_bf16/amx_bf16)" + small;
  if (dtype == kBFloat16) return "convert to float32 (16-bit shift) + sgemm" + small;
  return std::string("convert to float32 (") + (cpu_features().f16c ? "F16C" : "scalar") +
         ") + sgemm" + small;
}

void add_linalg_kernels(backend::Backend& b) { b.linalg = {.gemm = &gemm}; }

}  // namespace ember::cpu

// Optimizer updates over three steps against TensorFlow's formulas written
// out here in double precision, plus their failure modes.
#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/harness.h"

namespace grt_test {
namespace {

std::vector<double> Values(const grt_tensor* t) {
  std::vector<double> v(grt_tensor_num_elements(t));
  for (size_t i = 0; i < v.size(); i++) v[i] = At(t, static_cast<int64_t>(i));
  return v;
}

const std::vector<double> kVar = {1.0, -2.0, 0.5, 3.0};
const std::vector<double> kGrad = {0.1, -0.3, 0.25, 2.0};

double Tol(grt_dtype t) { return t == GRT_FLOAT64 ? 1e-12 : t == GRT_FLOAT32 ? 1e-5 : 3e-2; }

TEST(TrainingKernels, GradientDescentThreeSteps) {
  for (grt_dtype t : {GRT_FLOAT32, GRT_FLOAT64, GRT_FLOAT16, GRT_BFLOAT16}) {
    for (bool lock : {false, true}) {
      OpRun r("ApplyGradientDescent");
      r.AttrType("T", t).AttrBool("use_locking", lock);
      r.RefInput(t, {4}, MakeTensor(t, {4}, kVar));
      r.Input(MakeTensor(t, {}, {0.5})).Input(MakeTensor(t, {4}, kGrad));
      std::vector<double> want = Values(r.Var(0)->value);
      for (int step = 0; step < 3; step++) {
        ASSERT_OK(r.Run());
        for (size_t i = 0; i < want.size(); i++) want[i] -= 0.5 * kGrad[i];
        EXPECT_EQ(r.OutputRef(0), r.Var(0));
        ExpectNear(r.Var(0)->value, {4}, want, Tol(t));
      }
    }
  }
}

TEST(TrainingKernels, MomentumThreeSteps) {
  for (bool nesterov : {false, true}) {
    for (grt_dtype t : {GRT_FLOAT32, GRT_FLOAT64, GRT_BFLOAT16}) {
      const double lr = 0.1, mom = 0.9;
      OpRun r("ApplyMomentum");
      r.AttrType("T", t).AttrBool("use_nesterov", nesterov);
      r.RefInput(t, {4}, MakeTensor(t, {4}, kVar)).RefInput(t, {4}, MakeTensor(t, {4}, {0}));
      r.Input(MakeTensor(t, {}, {lr}))
          .Input(MakeTensor(t, {4}, kGrad))
          .Input(MakeTensor(t, {}, {mom}));
      std::vector<double> var = Values(r.Var(0)->value), accum(4, 0);
      for (int step = 0; step < 3; step++) {
        ASSERT_OK(r.Run());
        for (size_t i = 0; i < 4; i++) {
          accum[i] = accum[i] * mom + kGrad[i];
          var[i] -= nesterov ? kGrad[i] * lr + accum[i] * mom * lr : lr * accum[i];
        }
        ExpectNear(r.Var(0)->value, {4}, var, Tol(t));
        ExpectNear(r.Var(1)->value, {4}, accum, Tol(t));
      }
    }
  }
}

// Adam's beta powers are inputs that change every step (the optimizer
// keeps them in their own variables), so each step is its own node over the
// same var/m/v tensors.
TEST(TrainingKernels, AdamThreeStepsWithTensorFlowsFormula) {
  for (bool nesterov : {false, true}) {
    for (grt_dtype t : {GRT_FLOAT32, GRT_FLOAT64}) {
      const double lr = 0.01, b1 = 0.9, b2 = 0.999, eps = 1e-8;
      grt_tensor* var = MakeTensor(t, {4}, kVar);
      grt_tensor* m = MakeTensor(t, {4}, {0});
      grt_tensor* v = MakeTensor(t, {4}, {0});
      std::vector<double> rv = kVar, rm(4, 0), rvv(4, 0);
      for (int step = 1; step <= 3; step++) {
        double b1p = std::pow(b1, step), b2p = std::pow(b2, step);
        std::vector<double> g = kGrad;
        for (double& x : g) x *= step;  // a different gradient each step
        OpRun r("ApplyAdam");
        r.AttrType("T", t).AttrBool("use_nesterov", nesterov).AttrBool("use_locking", step == 2);
        r.RefInput(t, {4}, grt_tensor_ref(var)).RefInput(t, {4}, grt_tensor_ref(m));
        r.RefInput(t, {4}, grt_tensor_ref(v));
        for (double s : {b1p, b2p, lr, b1, b2, eps}) r.Input(MakeTensor(t, {}, {s}));
        r.Input(MakeTensor(t, {4}, g));
        ASSERT_OK(r.Run());
        double alpha = lr * std::sqrt(1 - b2p) / (1 - b1p);
        for (size_t i = 0; i < 4; i++) {
          rm[i] += (g[i] - rm[i]) * (1 - b1);
          rvv[i] += (g[i] * g[i] - rvv[i]) * (1 - b2);
          double num = nesterov ? (g[i] * (1 - b1) + b1 * rm[i]) : rm[i];
          rv[i] -= num * alpha / (std::sqrt(rvv[i]) + eps);
        }
        ExpectNear(var, {4}, rv, Tol(t));
        ExpectNear(m, {4}, rm, Tol(t));
        ExpectNear(v, {4}, rvv, Tol(t));
        EXPECT_EQ(r.OutputRef(0), r.Var(0));
      }
      grt_tensor_free(var);
      grt_tensor_free(m);
      grt_tensor_free(v);
    }
  }
}

// Long enough for the vectorised loop's body and its tail (67 = 4 x 16 + 3),
// from nonzero slots, against the formula in double.
TEST(TrainingKernels, AdamLongTensorMatchesFormula) {
  const int64_t n = 67;
  std::vector<double> var0(n), m0(n), v0(n), g(n);
  for (int64_t i = 0; i < n; i++) {
    var0[i] = 0.5 - 0.01 * (double)i;
    m0[i] = 0.002 * (double)(i % 7) - 0.006;
    v0[i] = 1e-4 * (double)(i % 5 + 1);
    g[i] = 0.03 * (double)((i * 13) % 11) - 0.15;
  }
  for (bool nesterov : {false, true}) {
    for (grt_dtype t : {GRT_FLOAT32, GRT_FLOAT64}) {
      const double b1p = 0.9 * 0.9, b2p = 0.999 * 0.999, lr = 0.01, b1 = 0.9, b2 = 0.999;
      const double eps = 1e-8;
      grt_tensor* var = MakeTensor(t, {n}, var0);
      grt_tensor* m = MakeTensor(t, {n}, m0);
      grt_tensor* v = MakeTensor(t, {n}, v0);
      OpRun r("ApplyAdam");
      r.AttrType("T", t).AttrBool("use_nesterov", nesterov).AttrBool("use_locking", false);
      r.RefInput(t, {n}, grt_tensor_ref(var)).RefInput(t, {n}, grt_tensor_ref(m));
      r.RefInput(t, {n}, grt_tensor_ref(v));
      for (double s : {b1p, b2p, lr, b1, b2, eps}) r.Input(MakeTensor(t, {}, {s}));
      r.Input(MakeTensor(t, {n}, g));
      ASSERT_OK(r.Run());
      std::vector<double> rv = var0, rm = m0, rvv = v0;
      double alpha = lr * std::sqrt(1 - b2p) / (1 - b1p);
      for (int64_t i = 0; i < n; i++) {
        rm[i] += (g[i] - rm[i]) * (1 - b1);
        rvv[i] += (g[i] * g[i] - rvv[i]) * (1 - b2);
        double num = nesterov ? (g[i] * (1 - b1) + b1 * rm[i]) : rm[i];
        rv[i] -= num * alpha / (std::sqrt(rvv[i]) + eps);
      }
      ExpectNear(var, {n}, rv, Tol(t));
      ExpectNear(m, {n}, rm, Tol(t));
      ExpectNear(v, {n}, rvv, Tol(t));
      grt_tensor_free(var);
      grt_tensor_free(m);
      grt_tensor_free(v);
    }
  }
}

TEST(TrainingKernels, UninitialisedSlotFails) {
  OpRun r("ApplyMomentum");
  r.AttrType("T", GRT_FLOAT32);
  r.RefInput(GRT_FLOAT32, {2}, T_<float>({2}, {1, 2})).RefInput(GRT_FLOAT32, {2}, nullptr);
  r.Input(T_<float>({}, {0.1})).Input(T_<float>({2}, {1, 1})).Input(T_<float>({}, {0.9}));
  grt_status* s = r.Run();
  EXPECT_EQ(grt_status_code(s), GRT_FAILED_PRECONDITION);
  EXPECT_STREQ(grt_status_message(s), "Attempting to use uninitialized variables: var1");
  grt_status_free(s);
  ExpectNear(r.Var(0)->value, {2}, {1, 2});  // nothing was updated
}

TEST(TrainingKernels, GradientShapeMustMatchTheVariable) {
  // The variable is declared [?] and holds [2]; the gradient is [3].
  OpRun r("ApplyGradientDescent");
  r.AttrType("T", GRT_FLOAT32).RefInput(GRT_FLOAT32, {-1}, T_<float>({2}, {1, 2}));
  r.Input(T_<float>({}, {0.1})).Input(T_<float>({3}, {1, 1, 1}));
  grt_status* s = r.Run();
  EXPECT_EQ(grt_status_code(s), GRT_INVALID_ARGUMENT);
  EXPECT_STREQ(grt_status_message(s), "var and delta do not have the same shape[2] [3]");
  grt_status_free(s);
}

TEST(TrainingKernels, NoKernelForIntegerTypes) {
  OpRun r("ApplyGradientDescent");
  r.AttrType("T", GRT_INT32).RefInput(GRT_INT32, {1}, T_<int32_t>({1}, {1}));
  r.Input(T_<int32_t>({}, {1})).Input(T_<int32_t>({1}, {1}));
  grt_status* s = r.Run();
  EXPECT_EQ(grt_status_code(s), GRT_UNIMPLEMENTED);
  grt_status_free(s);
}

}  // namespace
}  // namespace grt_test

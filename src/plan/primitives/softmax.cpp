// Softmax: AttnSoftmax (MIOpenSoftmaxAttn.cpp, HIP) for FP32 accurate
// instance-mode forward, else Softmax (MIOpenSoftmax.cl).
//
// MIOpen 3.3.0 (develop 2d1fd997); rocm-6.2.0 has the same two solvers:
//   src/softmax.cpp:125, :167                  SolverContainer<AttnSoftmax, Softmax>, <Softmax> (backward)
//   src/solver/softmax/attn_softmax.cpp:44-60  nextPow2 (1 -> 2)
//   src/solver/softmax/attn_softmax.cpp:67-85  IsApplicable
//   src/solver/softmax/attn_softmax.cpp:93-117 GetSolution: -DTHREADS=<clamp(nextPow2(c*h*w), wave, 256)>,
//                                              GenerateFor(HIP); SoftMaxCommon/Block/Warp
//   src/solver/softmax/softmax.cpp:64-121      getParams (grid, vector size, NUM_BATCH, BATCH_SIZE, U_BATCH_SIZE)
//   src/solver/softmax/softmax.cpp:139-256     GetSolution: the defines in order; LDS limit for FP16
#include "kdbgen/primitive.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace kdbgen {

namespace {

constexpr std::uint32_t next_pow2(std::uint32_t v) {
    if (v == 1) return 2;
    --v;
    v |= v >> 1, v |= v >> 2, v |= v >> 4, v |= v >> 8, v |= v >> 16;
    return v + 1;
}

// float_equal (src/include/miopen/float_equal.hpp:42-51): within one ulp.
bool float_equal(float x, float y) {
    return std::isfinite(x) && std::isfinite(y) && std::nextafter(x, std::numeric_limits<float>::lowest()) <= y &&
           std::nextafter(x, std::numeric_limits<float>::max()) >= y;
}

long n_of(const SoftmaxProblem& p) { return p.x.dims[0]; }
long c_of(const SoftmaxProblem& p) { return p.x.dims[1]; }
long hw_of(const SoftmaxProblem& p) {
    long hw = 1;
    for (std::size_t i = 2; i < p.x.dims.size(); ++i) hw *= p.x.dims[i];
    return hw;
}

class AttnSoftmax : public PrimitiveSolverFor<SoftmaxProblem> {
public:
    std::string_view name() const override { return "AttnSoftmax"; }
    std::string_view kind() const override { return "softmax"; }
    int order() const override { return 0; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const SoftmaxProblem& p, const PrimitiveContext&, std::string* why) const override {
        const long seq_len = c_of(p) * hw_of(p);
        const bool ok = seq_len <= 0xffffffffL && p.algorithm == 1 && p.direction == SoftmaxProblem::Direction::Forward &&
                        p.data_type == DataType::Float && p.mode == 0 && float_equal(p.alpha, 1.0f) &&
                        float_equal(p.beta, 0.0f) && (seq_len > 16 || n_of(p) <= 1024);
        return ok || reject(why, "not FP32 accurate instance-mode forward");
    }
    std::vector<SolverKernel> kernels(const SoftmaxProblem& p, const PrimitiveContext& ctx) const override {
        const std::uint32_t seq_len = static_cast<std::uint32_t>(c_of(p) * hw_of(p));
        const std::size_t wave = ctx.target.processor->default_wave_size;
        const std::size_t threads = std::clamp<std::size_t>(next_pow2(seq_len), wave, 256);
        const char* symbol = seq_len > threads ? "SoftMaxCommon" : seq_len > wave ? "SoftMaxBlock" : "SoftMaxWarp";
        return {{"MIOpenSoftmaxAttn.cpp", {symbol}, generate_defines({{"THREADS", std::to_string(threads)}}, "D")}};
    }
};

class Softmax : public PrimitiveSolverFor<SoftmaxProblem> {
public:
    std::string_view name() const override { return "Softmax"; }
    std::string_view kind() const override { return "softmax"; }
    int order() const override { return 1; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const SoftmaxProblem& p, const PrimitiveContext&, std::string* why) const override {
        const auto [num_batch, batch_size, u_batch_size] = params(p);
        (void)batch_size;
        const bool forward = p.direction == SoftmaxProblem::Direction::Forward;
        if (num_batch > 1 && p.data_type == DataType::Half &&
            ((forward ? u_batch_size + 1 : 2 * u_batch_size + 1) * 256 > 65536))
            return reject(why, "exceeds local memory (softmax.cpp:188-202)");
        return true;
    }
    std::vector<SolverKernel> kernels(const SoftmaxProblem& p, const PrimitiveContext&) const override {
        const auto [num_batch, batch_size, u_batch_size] = params(p);
        const bool forward = p.direction == SoftmaxProblem::Direction::Forward;
        const bool fp16 = p.data_type == DataType::Half;
        std::vector<std::pair<std::string, std::string>> d = {{"NUM_BATCH", std::to_string(num_batch)}};
        if (num_batch > 1) {
            d.push_back({"BATCH_SIZE", std::to_string(batch_size)});
            d.push_back({"U_BATCH_SIZE", std::to_string(u_batch_size)});
        }
        d.push_back({"MIOPEN_USE_FP16", fp16 ? "1" : "0"});
        d.push_back({"MIOPEN_USE_FP32", fp16 ? "0" : "1"});
        d.push_back({p.algorithm == 2 ? "USE_SOFTMAX_LOG" : p.algorithm == 0 ? "USE_SOFTMAX_FAST" : "USE_SOFTMAX_ACCURATE", "1"});
        d.push_back({p.mode == 0 ? "USE_SOFTMAX_MODE_INSTANCE" : "USE_SOFTMAX_MODE_CHANNEL", "1"});
        d.push_back({"RUN_FORWARD", forward ? "1" : "0"});
        if (forward) {
            d.push_back({"IS_INPUT_PACKED", "1"});
            d.push_back({"IS_OUTPUT_PACKED", "1"});
        } else {
            d.push_back({"IS_OUTPUT_PACKED", "1"});
            d.push_back({"IS_DOUTPUT_PACKED", "1"});
            d.push_back({"IS_DINPUT_PACKED", "1"});
        }
        if (!float_equal(p.alpha, 1.0f)) d.push_back({"USE_ALPHA", "1"});
        if (!float_equal(p.beta, 0.0f)) d.push_back({"USE_BETA", "1"});
        return {{"MIOpenSoftmax.cl", {forward ? "SoftmaxForward" : "SoftmaxBackward"}, generate_defines(d, "D")}};
    }

private:
    // getParams: {num_batch, batch_size, u_batch_size}.
    static std::tuple<int, int, int> params(const SoftmaxProblem& p) {
        const int vector_size = static_cast<int>(p.mode == 0 ? c_of(p) * hw_of(p) : c_of(p));
        const int num_batch = vector_size < 256 ? static_cast<int>(next_pow2(static_cast<std::uint32_t>(256 / vector_size))) : 1;
        if (num_batch == 1) return {1, 0, 0};
        const int batch_size = 256 / num_batch;
        const int u_batch_size =
            vector_size > batch_size ? static_cast<int>(next_pow2(static_cast<std::uint32_t>(vector_size / batch_size))) : 1;
        return {num_batch, batch_size, u_batch_size};
    }
};

}  // namespace

KDBGEN_REGISTER_PRIMITIVE_SOLVER(AttnSoftmax)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(Softmax)

}  // namespace kdbgen

// GEMM-based solvers: their convolution runs as rocBLAS (or hipBLASLt)
// GEMMs, which are not MIOpen kernels and never go into a kdb.
// Names: src/solver/conv/gemm.cpp, gemm_bwd.cpp, gemm_wrw.cpp (MIOpen 3.3.0).
// Not yet planned: the im2col/col2im and transpose helper kernels
// (MIOpenIm2d2Col.cl, MIOpenCol2Im2d.cl, ...) that GemmFwdRest, GemmBwdRest
// and GemmWrwUniversal launch around the GEMM.
#include "kdbgen/solver.hpp"

namespace kdbgen {

namespace {

class GemmSolver : public Solver {
public:
    explicit GemmSolver(std::string name) : name_(std::move(name)) {}
    std::string_view name() const override { return name_; }
    bool builds_kernels() const override { return false; }
    bool applicable(const ConvView&, const SolverContext&, std::string* why) const override {
        if (why) *why = "GEMM solvers are planned from the find-db only";
        return false;
    }
    std::vector<SolverKernel> kernels(const ConvView&, const SolverContext&) const override { return {}; }

private:
    std::string name_;
};

const bool registered = [] {
    for (const char* name : {"GemmFwd1x1_0_1", "GemmFwd1x1_0_2", "GemmFwdRest", "GemmBwd1x1_stride1",
                             "GemmBwd1x1_stride2", "GemmBwdRest", "GemmWrw1x1_stride1", "GemmWrwUniversal"})
        register_solver(std::make_unique<GemmSolver>(name));
    return true;
}();

}  // namespace

}  // namespace kdbgen

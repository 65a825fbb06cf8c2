// Convolutions replayed (replay.hpp): Find and the call with the winner, or
// every solution through CompileSolution and the immediate call.
#include "replay.hpp"

#include <algorithm>

namespace kdbgen::replay {

namespace {

// A convolution's tensors, descriptor and buffers, as a problem line gives them.
struct Convolution {
    Tensor x, w, y;
    Owned<api::ConvolutionDescriptor> owned_conv;
    api::ConvolutionDescriptor conv = nullptr;
    Buffer xb, wb, yb;
    std::string dir;

    explicit Convolution(const Fields& f)
        : x(numbers(field(f, "x")), type_of(f, 0), layout_of(f, 0)),
          w(numbers(field(f, "w")), type_of(f, 1), layout_of(f, 1)),
          y(numbers(field(f, "y")), type_of(f, 2), layout_of(f, 2)),
          owned_conv(create(lib->miopenCreateConvolutionDescriptor, lib->miopenDestroyConvolutionDescriptor,
                            "miopenCreateConvolutionDescriptor")),
          conv(owned_conv.handle), xb(x.bytes), wb(w.bytes), yb(y.bytes), dir(field(f, "dir")) {
        const auto pads = ints(field(f, "pad")), strides = ints(field(f, "stride")), dilations = ints(field(f, "dil"));
        check(lib->miopenInitConvolutionNdDescriptor(conv, static_cast<int>(pads.size()), pads.data(), strides.data(),
                                                     dilations.data(), api::kConvolutionMode),
              "miopenInitConvolutionNdDescriptor");
        check(lib->miopenSetConvolutionGroupCount(conv, static_cast<int>(integer(f, "groups"))),
              "miopenSetConvolutionGroupCount");
    }

private:
    static int type_of(const Fields& f, std::size_t i) {
        const auto types = ints(field(f, "types"));
        if (types.size() != 3) throw std::runtime_error("types and layouts need 3 values");
        return types[i];
    }
    static std::string layout_of(const Fields& f, std::size_t i) {
        const auto layouts = words(field(f, "layouts"));
        if (layouts.size() != 3) throw std::runtime_error("types and layouts need 3 values");
        return layouts[i];
    }
};

// Find (MIOpen's default find mode), then the convolution with the winner
// (its invoke-time helpers: transposes, SetTensor, im2col).
void find_conv(api::Handle handle, Convolution& c) {
    const std::string& dir = c.dir;
    Tensor &x = c.x, &w = c.w, &y = c.y;
    Buffer &xb = c.xb, &wb = c.wb, &yb = c.yb;
    const api::ConvolutionDescriptor conv = c.conv;
    std::size_t workspace_size = 0;
    if (dir == "F")
        check(lib->miopenConvolutionForwardGetWorkSpaceSize(handle, w.desc, x.desc, conv, y.desc, &workspace_size),
              "miopenConvolutionForwardGetWorkSpaceSize");
    else if (dir == "B")
        check(lib->miopenConvolutionBackwardDataGetWorkSpaceSize(handle, y.desc, w.desc, conv, x.desc,
                                                                 &workspace_size),
              "miopenConvolutionBackwardDataGetWorkSpaceSize");
    else
        check(lib->miopenConvolutionBackwardWeightsGetWorkSpaceSize(handle, y.desc, x.desc, conv, w.desc,
                                                                    &workspace_size),
              "miopenConvolutionBackwardWeightsGetWorkSpaceSize");
    Buffer workspace(workspace_size);
    api::ConvAlgoPerf perf[8] = {};
    int found = 0;
    if (dir == "F") {
        check(lib->miopenFindConvolutionForwardAlgorithm(handle, x.desc, xb.data, w.desc, wb.data, conv, y.desc,
                                                         yb.data, 8, &found, perf, workspace.data,
                                                         workspace.size, false),
              "miopenFindConvolutionForwardAlgorithm");
        if (found > 0)
            check(lib->miopenConvolutionForward(handle, &kOne, x.desc, xb.data, w.desc, wb.data, conv,
                                                perf[0].algorithm, &kZero, y.desc, yb.data, workspace.data,
                                                workspace.size),
                  "miopenConvolutionForward");
    } else if (dir == "B") {
        check(lib->miopenFindConvolutionBackwardDataAlgorithm(handle, y.desc, yb.data, w.desc, wb.data, conv,
                                                              x.desc, xb.data, 8, &found, perf, workspace.data,
                                                              workspace.size, false),
              "miopenFindConvolutionBackwardDataAlgorithm");
        if (found > 0)
            check(lib->miopenConvolutionBackwardData(handle, &kOne, y.desc, yb.data, w.desc, wb.data, conv,
                                                     perf[0].algorithm, &kZero, x.desc, xb.data, workspace.data,
                                                     workspace.size),
                  "miopenConvolutionBackwardData");
    } else {
        check(lib->miopenFindConvolutionBackwardWeightsAlgorithm(handle, y.desc, yb.data, x.desc, xb.data, conv,
                                                                 w.desc, wb.data, 8, &found, perf,
                                                                 workspace.data, workspace.size, false),
              "miopenFindConvolutionBackwardWeightsAlgorithm");
        if (found > 0)
            check(lib->miopenConvolutionBackwardWeights(handle, &kOne, y.desc, yb.data, x.desc, xb.data, conv,
                                                        perf[0].algorithm, &kZero, w.desc, wb.data,
                                                        workspace.data, workspace.size),
                  "miopenConvolutionBackwardWeights");
    }
}

// In a process that runs no Find: every solution GetSolution lists through
// CompileSolution and the immediate call (running it builds its invoke-time
// helpers too).
void immediate_conv(api::Handle handle, Convolution& c, const Notes& note) {
    const std::string& dir = c.dir;
    Tensor &x = c.x, &w = c.w, &y = c.y;
    Buffer &xb = c.xb, &wb = c.wb, &yb = c.yb;
    const api::ConvolutionDescriptor conv = c.conv;

    api::ConvSolution solutions[64] = {};
    std::size_t count = 0;
    if (dir == "F")
        check(lib->miopenConvolutionForwardGetSolution(handle, w.desc, x.desc, conv, y.desc, 64, &count, solutions),
              "miopenConvolutionForwardGetSolution");
    else if (dir == "B")
        check(lib->miopenConvolutionBackwardDataGetSolution(handle, y.desc, w.desc, conv, x.desc, 64, &count,
                                                            solutions),
              "miopenConvolutionBackwardDataGetSolution");
    else
        check(lib->miopenConvolutionBackwardWeightsGetSolution(handle, y.desc, x.desc, conv, w.desc, 64, &count,
                                                               solutions),
              "miopenConvolutionBackwardWeightsGetSolution");
    if (count == 0) throw CallFailed("GetSolution: no solution for this problem");
    std::size_t largest_workspace = 0;
    for (std::size_t i = 0; i < count; ++i) largest_workspace = std::max(largest_workspace, solutions[i].workspace_size);
    Buffer solution_workspace(largest_workspace);
    std::size_t failed = 0;
    for (std::size_t i = 0; i < count; ++i) {
        try {
            const auto id = solutions[i].solution_id;
            void* ws = solution_workspace.data;
            const std::size_t ws_size = solutions[i].workspace_size;
            if (dir == "F") {
                check(lib->miopenConvolutionForwardCompileSolution(handle, w.desc, x.desc, conv, y.desc, id),
                      "miopenConvolutionForwardCompileSolution");
                check(lib->miopenConvolutionForwardImmediate(handle, w.desc, wb.data, x.desc, xb.data, conv, y.desc,
                                                             yb.data, ws, ws_size, id),
                      "miopenConvolutionForwardImmediate");
            } else if (dir == "B") {
                check(lib->miopenConvolutionBackwardDataCompileSolution(handle, y.desc, w.desc, conv, x.desc, id),
                      "miopenConvolutionBackwardDataCompileSolution");
                check(lib->miopenConvolutionBackwardDataImmediate(handle, y.desc, yb.data, w.desc, wb.data, conv,
                                                                  x.desc, xb.data, ws, ws_size, id),
                      "miopenConvolutionBackwardDataImmediate");
            } else {
                check(lib->miopenConvolutionBackwardWeightsCompileSolution(handle, y.desc, x.desc, conv, w.desc, id),
                      "miopenConvolutionBackwardWeightsCompileSolution");
                check(lib->miopenConvolutionBackwardWeightsImmediate(handle, y.desc, yb.data, x.desc, xb.data, conv,
                                                                     w.desc, wb.data, ws, ws_size, id),
                      "miopenConvolutionBackwardWeightsImmediate");
            }
        } catch (const CallFailed& failure) {
            ++failed;
            note(CallFailed(std::string(failure.what()) + " (solution " + std::to_string(solutions[i].solution_id) +
                            ")"));
        }
    }
    // The first solution is the one a framework runs (-S 0): the problem fails with it.
    if (failed == count) throw CallFailed("every solution GetSolution listed failed");
}

}  // namespace

// Find (MIOpen's default find mode), then the convolution with the winner
// (its invoke-time helpers: transposes, SetTensor, im2col); or, in a process
// that runs no Find, every solution GetSolution lists through CompileSolution
// and the immediate call (running it builds its invoke-time helpers too).
void replay_conv(api::Handle handle, const Fields& f, const Notes& note, Mode mode) {
    Convolution convolution(f);
    if (mode == Mode::Find) find_conv(handle, convolution);
    else immediate_conv(handle, convolution, note);
}

}  // namespace kdbgen::replay

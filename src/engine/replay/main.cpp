// kdbgen-miopen-replay: makes, for each problem kdbgen gives it, the calls a
// framework makes on its first run, against an installed libMIOpen under
// kdbgen-hip-stub. MIOpen then forms and compiles its own kernels into its user
// kdb, which kdbgen reads afterwards; the replay itself computes nothing.
//
//   kdbgen-miopen-replay LIBMIOPEN PROBLEMS [find|immediate [handle-each|one-handle]]
//
// A convolution is replayed one of the two ways a framework's process runs it
// (default find), and kdbgen runs each in processes of their own: what MIOpen
// asks its kdb for depends on what the process did before. After a Find,
// CompileSolution returns the invoker Find registered and builds nothing
// (LoadOrPrepareInvoker, src/ocl/convolutionocl.cpp:102-121, MIOpen 3.3.0),
// while a process that never ran Find (PyTorch without benchmark mode,
// MIOpenDriver -S 0) compiles through another path, whose keys differ (the
// data-type defines twice):
//   find       Find, then the convolution with the winner (MIOpenDriver's default)
//   immediate  GetSolutionCount/GetSolution, then for every solution
//              CompileSolution and the *Immediate call (MIOpenDriver -S 0 runs the
//              first; every one, so that a failing kernel hides no other)
// Other primitives have one way; they run in either mode.
//
// handle-each (the default) gives every problem a MIOpen handle of its own, so
// that every key it needs is looked up; one-handle runs them all on one, as a
// framework's process does (kdbgen's check: ReplayPurpose in miopen_engine.hpp).
//
// PROBLEMS has one problem a line (src/engine/replay_format.cpp writes it):
//   <id> conv dir=F|B|W x=N,C,H,W w=K,Cg,Y,X y=N,K,H,W pad=.. stride=.. dil=.. groups=G
//        types=X,W,Y layouts=X,W,Y
//   <id> bnorm dir=train|infer|back mode=0|1 x=.. type=T ptype=T layout=L saved=0|1 running=0|1
//        (saved: train writes, back reads, the saved mean and inverse variance; running:
//        train updates the running mean and variance; a buffer not given is passed as null,
//        as the caller did)
//   <id> pool dir=F|B mode=M x=.. y=.. win=.. pad=.. stride=.. type=T index=I wsmode=W save=0|1 layout=L
//   <id> activ dir=F|B mode=M alpha=A beta=B gamma=G x=.. type=T
//   <id> softmax dir=F|B algo=A mode=M alpha=A beta=B x=.. type=T
//   <id> lrn dir=F|B mode=M n=N alpha=A beta=B k=K save=0|1 x=.. type=T
//   <id> tensorop routine=op|set|scale op=O a=.. b=.. type=T
// Types are miopenDataType_t numbers; layouts are NCHW, NHWC, NCDHW or NDHWC.
//
// On standard output, flushed line by line so that kdbgen knows which problem
// a crash interrupted: "start <id>", then "done <id> ok" or
// "done <id> fail <call>: <MIOpen's status text>"; "note <id> <text>" for a
// call that failed on the way while the rest went on. kdbgen reads standard
// error (MIOpen's log) through the same pipe, so MIOpen's lines of a problem
// come between its start and done (standard error is buffered and flushed
// before each of them).
#include "miopen_api.hpp"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <type_traits>

namespace kdbgen::miopen_api {
// The entry points, resolved from the library with dlsym.
struct Library {
#define KDBGEN_DECLARE(name, type) std::type_identity_t<type> name = nullptr;
    KDBGEN_MIOPEN_FUNCTIONS(KDBGEN_DECLARE)
#undef KDBGEN_DECLARE
};
}  // namespace kdbgen::miopen_api

namespace api = kdbgen::miopen_api;

namespace {

using api::Library;

Library load_library(const char* path) {
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error(std::string("cannot load ") + path + ": " + dlerror());
    Library library;
#define KDBGEN_RESOLVE(name, type)                                                                            \
    library.name = reinterpret_cast<decltype(library.name)>(dlsym(handle, #name));                                             \
    if (!library.name) throw std::runtime_error(std::string(path) + " does not export " #name);
    KDBGEN_MIOPEN_FUNCTIONS(KDBGEN_RESOLVE)
#undef KDBGEN_RESOLVE
    return library;
}

// A failed MIOpen call: which one and MIOpen's own words for its status.
struct CallFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const Library* lib = nullptr;

void check(api::Status status, const char* call) {
    if (status == 0) return;
    const char* text = lib->miopenGetErrorString ? lib->miopenGetErrorString(status) : nullptr;
    throw CallFailed(std::string(call) + ": " + (text ? text : "status " + std::to_string(status)));
}

using Fields = std::map<std::string, std::string>;

const std::string& field(const Fields& fields, const std::string& name) {
    const auto found = fields.find(name);
    if (found == fields.end()) throw std::runtime_error("missing field " + name);
    return found->second;
}

std::vector<long> numbers(const std::string& text) {
    std::vector<long> values;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) values.push_back(std::stol(item));
    return values;
}
std::vector<int> ints(const std::string& text) {
    const auto values = numbers(text);
    return {values.begin(), values.end()};
}
long integer(const Fields& fields, const std::string& name) { return std::stol(field(fields, name)); }
std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> values;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) values.push_back(item);
    return values;
}

std::size_t element_size(int type) {
    switch (type) {
    case api::Half: case api::BFloat16: return 2;
    case api::Int8: return 1;
    case api::Double: return 8;
    default: return 4;
    }
}

// Buffers are reserved, never touched: no kernel runs under the stub.
struct Buffer {
    void* data = nullptr;
    std::size_t size = 0;
    explicit Buffer(std::size_t bytes) : size(bytes == 0 ? 1 : bytes) {
        data = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (data == MAP_FAILED) throw std::runtime_error("cannot reserve " + std::to_string(size) + " bytes");
    }
    ~Buffer() { munmap(data, size); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
};

struct Tensor {
    api::TensorDescriptor desc = nullptr;
    std::size_t bytes = 0;
    Tensor(const std::vector<long>& dims, int type, const std::string& layout) {
        check(lib->miopenCreateTensorDescriptor(&desc), "miopenCreateTensorDescriptor");
        // Strides of a packed tensor in the given layout; dims are always N, C, spatial...
        const std::size_t rank = dims.size();
        std::vector<int> order(rank);  // innermost last
        if (layout == "NHWC" || layout == "NDHWC") {
            order[0] = 0;
            for (std::size_t i = 2; i < rank; ++i) order[i - 1] = static_cast<int>(i);
            order[rank - 1] = 1;
        } else {
            for (std::size_t i = 0; i < rank; ++i) order[i] = static_cast<int>(i);
        }
        std::vector<int> strides(rank), sizes(dims.begin(), dims.end());
        long stride = 1;
        for (std::size_t i = rank; i-- > 0;) {
            strides[order[i]] = static_cast<int>(stride);
            stride *= dims[order[i]];
        }
        bytes = static_cast<std::size_t>(stride) * element_size(type);
        check(lib->miopenSetTensorDescriptor(desc, type, static_cast<int>(rank), sizes.data(), strides.data()),
              "miopenSetTensorDescriptor");
    }
    ~Tensor() { lib->miopenDestroyTensorDescriptor(desc); }
    Tensor(const Tensor&) = delete;
    Tensor& operator=(const Tensor&) = delete;
};

// A MIOpen descriptor, destroyed when it goes out of scope.
template <typename Descriptor>
struct Owned {
    Descriptor handle = nullptr;
    api::Status (*destroy)(Descriptor) = nullptr;
    ~Owned() {
        if (handle) destroy(handle);
    }
};

template <typename Descriptor>
Owned<Descriptor> create(api::Status (*create_one)(Descriptor*), api::Status (*destroy)(Descriptor), const char* name) {
    Owned<Descriptor> owned{nullptr, destroy};
    check(create_one(&owned.handle), name);
    return owned;
}

// alpha/beta as MIOpen reads them: float for every type but double.
const float kOne = 1.0f, kZero = 0.0f;

struct Notes {
    std::string id;
    void operator()(const CallFailed& failure) const {
        std::printf("note %s %s\n", id.c_str(), failure.what());
        std::fflush(stdout);
    }
};

enum class Mode { Find, Immediate };

// Find (MIOpen's default find mode), then the convolution with the winner
// (its invoke-time helpers: transposes, SetTensor, im2col); or, in a process
// that runs no Find, every solution GetSolution lists through CompileSolution
// and the immediate call (running it builds its invoke-time helpers too).
void replay_conv(api::Handle handle, const Fields& f, const Notes& note, Mode mode) {
    const auto types = ints(field(f, "types"));
    const auto layouts = words(field(f, "layouts"));
    if (types.size() != 3 || layouts.size() != 3) throw std::runtime_error("types and layouts need 3 values");
    Tensor x(numbers(field(f, "x")), types[0], layouts[0]);
    Tensor w(numbers(field(f, "w")), types[1], layouts[1]);
    Tensor y(numbers(field(f, "y")), types[2], layouts[2]);
    const auto pads = ints(field(f, "pad")), strides = ints(field(f, "stride")), dilations = ints(field(f, "dil"));
    const auto owned_conv = create(lib->miopenCreateConvolutionDescriptor, lib->miopenDestroyConvolutionDescriptor,
                                   "miopenCreateConvolutionDescriptor");
    const api::ConvolutionDescriptor conv = owned_conv.handle;
    check(lib->miopenInitConvolutionNdDescriptor(conv, static_cast<int>(pads.size()), pads.data(), strides.data(),
                                                 dilations.data(), api::kConvolutionMode),
          "miopenInitConvolutionNdDescriptor");
    check(lib->miopenSetConvolutionGroupCount(conv, static_cast<int>(integer(f, "groups"))),
          "miopenSetConvolutionGroupCount");
    Buffer xb(x.bytes), wb(w.bytes), yb(y.bytes);
    const std::string dir = field(f, "dir");

    if (mode == Mode::Find) {
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
        return;
    }

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

void replay_batch_norm(api::Handle handle, const Fields& f) {
    const int type = static_cast<int>(integer(f, "type"));
    const int mode = static_cast<int>(integer(f, "mode"));
    const auto dims = numbers(field(f, "x"));
    const std::string layout = field(f, "layout");
    Tensor x(dims, type, layout), y(dims, type, layout);
    // Scale, bias, mean and variance: 1 x C x 1 x 1 (spatial) or 1 x C x H x W, in the parameter type.
    std::vector<long> param_dims(dims.size(), 1);
    param_dims[1] = dims[1];
    if (mode == 0)
        for (std::size_t i = 2; i < dims.size(); ++i) param_dims[i] = dims[i];
    Tensor params(param_dims, static_cast<int>(integer(f, "ptype")), layout);
    Buffer xb(x.bytes), yb(y.bytes), dxb(x.bytes), scale(params.bytes), bias(params.bytes), mean(params.bytes),
        variance(params.bytes), saved_mean(params.bytes), saved_variance(params.bytes);
    float alpha = 1, beta = 0;
    const std::string dir = field(f, "dir");
    // Absent from lines of older kdbgen versions: every buffer given.
    const bool saved = !f.count("saved") || integer(f, "saved") != 0;
    const bool running = !f.count("running") || integer(f, "running") != 0;
    void* saved_mean_data = saved ? saved_mean.data : nullptr;
    void* saved_variance_data = saved ? saved_variance.data : nullptr;
    if (dir == "train")
        check(lib->miopenBatchNormalizationForwardTraining(handle, mode, &alpha, &beta, x.desc, xb.data, y.desc,
                                                           yb.data, params.desc, scale.data, bias.data, 0.1,
                                                           running ? mean.data : nullptr,
                                                           running ? variance.data : nullptr, 1e-5, saved_mean_data,
                                                           saved_variance_data),
              "miopenBatchNormalizationForwardTraining");
    else if (dir == "infer")
        check(lib->miopenBatchNormalizationForwardInference(handle, mode, &alpha, &beta, x.desc, xb.data, y.desc,
                                                            yb.data, params.desc, scale.data, bias.data, mean.data,
                                                            variance.data, 1e-5),
              "miopenBatchNormalizationForwardInference");
    else
        check(lib->miopenBatchNormalizationBackward(handle, mode, &alpha, &beta, &alpha, &beta, x.desc, xb.data,
                                                    y.desc, yb.data, x.desc, dxb.data, params.desc, scale.data,
                                                    mean.data, variance.data, 1e-5, saved_mean_data,
                                                    saved_variance_data),
              "miopenBatchNormalizationBackward");
}

void replay_pooling(api::Handle handle, const Fields& f) {
    const int type = static_cast<int>(integer(f, "type"));
    const std::string layout = f.count("layout") ? field(f, "layout") : "NCHW";
    Tensor x(numbers(field(f, "x")), type, layout), y(numbers(field(f, "y")), type, layout);
    const auto owned_pool = create(lib->miopenCreatePoolingDescriptor, lib->miopenDestroyPoolingDescriptor,
                                   "miopenCreatePoolingDescriptor");
    const api::PoolingDescriptor pool = owned_pool.handle;
    auto window = ints(field(f, "win")), pads = ints(field(f, "pad")), strides = ints(field(f, "stride"));
    check(lib->miopenSetNdPoolingDescriptor(pool, static_cast<int>(integer(f, "mode")),
                                            static_cast<int>(window.size()), window.data(), pads.data(),
                                            strides.data()),
          "miopenSetNdPoolingDescriptor");
    check(lib->miopenSetPoolingIndexType(pool, static_cast<int>(integer(f, "index"))), "miopenSetPoolingIndexType");
    check(lib->miopenSetPoolingWorkSpaceIndexMode(pool, static_cast<int>(integer(f, "wsmode"))),
          "miopenSetPoolingWorkSpaceIndexMode");
    std::size_t workspace_size = 0;
    check(lib->miopenPoolingGetWorkSpaceSizeV2(pool, y.desc, &workspace_size), "miopenPoolingGetWorkSpaceSizeV2");
    Buffer xb(x.bytes), yb(y.bytes), dxb(x.bytes), dyb(y.bytes), workspace(workspace_size);
    const bool save = integer(f, "save") != 0;
    const std::string dir = field(f, "dir");
    // The backward reads the forward's workspace: a framework runs both in training.
    check(lib->miopenPoolingForward(handle, pool, &kOne, x.desc, xb.data, &kZero, y.desc, yb.data,
                                    save || dir == "B", workspace.data, workspace.size),
          "miopenPoolingForward");
    if (dir == "B")
        check(lib->miopenPoolingBackward(handle, pool, &kOne, y.desc, yb.data, y.desc, dyb.data, x.desc, xb.data,
                                         &kZero, x.desc, dxb.data, workspace.data),
              "miopenPoolingBackward");
}

void replay_activation(api::Handle handle, const Fields& f) {
    const int type = static_cast<int>(integer(f, "type"));
    const auto dims = numbers(field(f, "x"));
    Tensor x(dims, type, "NCHW"), y(dims, type, "NCHW");
    const auto owned_activation = create(lib->miopenCreateActivationDescriptor,
                                         lib->miopenDestroyActivationDescriptor, "miopenCreateActivationDescriptor");
    const api::ActivationDescriptor activation = owned_activation.handle;
    const auto parameter = [&](const char* name) { return f.count(name) ? std::stod(field(f, name)) : 1.0; };
    check(lib->miopenSetActivationDescriptor(activation, static_cast<int>(integer(f, "mode")), parameter("alpha"),
                                             parameter("beta"), parameter("gamma")),
          "miopenSetActivationDescriptor");
    Buffer xb(x.bytes), yb(y.bytes), dxb(x.bytes), dyb(y.bytes);
    if (field(f, "dir") == "F")
        check(lib->miopenActivationForward(handle, activation, &kOne, x.desc, xb.data, &kZero, y.desc, yb.data),
              "miopenActivationForward");
    else
        check(lib->miopenActivationBackward(handle, activation, &kOne, y.desc, yb.data, y.desc, dyb.data, x.desc,
                                            xb.data, &kZero, x.desc, dxb.data),
              "miopenActivationBackward");
}

void replay_softmax(api::Handle handle, const Fields& f) {
    const int type = static_cast<int>(integer(f, "type"));
    const auto dims = numbers(field(f, "x"));
    Tensor x(dims, type, "NCHW"), y(dims, type, "NCHW");
    Buffer xb(x.bytes), yb(y.bytes), dxb(x.bytes), dyb(y.bytes);
    const int algorithm = static_cast<int>(integer(f, "algo")), mode = static_cast<int>(integer(f, "mode"));
    // MIOpen forms its softmax kernels' options from alpha and beta (1 and 0 take shortcuts).
    const float alpha = f.count("alpha") ? std::stof(field(f, "alpha")) : 1.0f;
    const float beta = f.count("beta") ? std::stof(field(f, "beta")) : 0.0f;
    if (field(f, "dir") == "F")
        check(lib->miopenSoftmaxForward_V2(handle, &alpha, x.desc, xb.data, &beta, y.desc, yb.data, algorithm, mode),
              "miopenSoftmaxForward_V2");
    else
        check(lib->miopenSoftmaxBackward_V2(handle, &alpha, y.desc, yb.data, y.desc, dyb.data, &beta, x.desc,
                                            dxb.data, algorithm, mode),
              "miopenSoftmaxBackward_V2");
}

void replay_lrn(api::Handle handle, const Fields& f) {
    const int type = static_cast<int>(integer(f, "type"));
    const auto dims = numbers(field(f, "x"));
    Tensor x(dims, type, "NCHW"), y(dims, type, "NCHW");
    const auto owned_lrn = create(lib->miopenCreateLRNDescriptor, lib->miopenDestroyLRNDescriptor,
                                  "miopenCreateLRNDescriptor");
    const api::LrnDescriptor lrn = owned_lrn.handle;
    check(lib->miopenSetLRNDescriptor(lrn, static_cast<int>(integer(f, "mode")),
                                      static_cast<unsigned>(integer(f, "n")), std::stod(field(f, "alpha")),
                                      std::stod(field(f, "beta")), std::stod(field(f, "k"))),
          "miopenSetLRNDescriptor");
    std::size_t workspace_size = 0;
    check(lib->miopenLRNGetWorkSpaceSize(y.desc, &workspace_size), "miopenLRNGetWorkSpaceSize");
    Buffer xb(x.bytes), yb(y.bytes), dxb(x.bytes), dyb(y.bytes), workspace(workspace_size);
    const bool backward = field(f, "dir") == "B";
    check(lib->miopenLRNForward(handle, lrn, &kOne, x.desc, xb.data, &kZero, y.desc, yb.data,
                                backward || integer(f, "save") != 0, workspace.data),
          "miopenLRNForward");
    if (backward)
        check(lib->miopenLRNBackward(handle, lrn, &kOne, y.desc, yb.data, y.desc, dyb.data, x.desc, xb.data, &kZero,
                                     x.desc, dxb.data, workspace.data),
              "miopenLRNBackward");
}

void replay_tensor_op(api::Handle handle, const Fields& f) {
    const int type = static_cast<int>(integer(f, "type"));
    const auto a_dims = numbers(field(f, "a"));
    Tensor a(a_dims, type, "NCHW");
    Buffer ab(a.bytes);
    const std::string routine = field(f, "routine");
    if (routine == "set") {
        check(lib->miopenSetTensor(handle, a.desc, ab.data, &kOne), "miopenSetTensor");
    } else if (routine == "scale") {
        check(lib->miopenScaleTensor(handle, a.desc, ab.data, &kOne), "miopenScaleTensor");
    } else {
        Tensor b(numbers(field(f, "b")), type, "NCHW"), c(a_dims, type, "NCHW");
        Buffer bb(b.bytes), cb(c.bytes);
        check(lib->miopenOpTensor(handle, static_cast<int>(integer(f, "op")), &kOne, a.desc, ab.data, &kOne, b.desc,
                                  bb.data, &kZero, c.desc, cb.data),
              "miopenOpTensor");
    }
}

void replay(api::Handle handle, const std::string& kind, const Fields& fields, const Notes& note, Mode mode) {
    if (kind == "conv") return replay_conv(handle, fields, note, mode);
    if (kind == "bnorm") return replay_batch_norm(handle, fields);
    if (kind == "pool") return replay_pooling(handle, fields);
    if (kind == "activ") return replay_activation(handle, fields);
    if (kind == "softmax") return replay_softmax(handle, fields);
    if (kind == "lrn") return replay_lrn(handle, fields);
    if (kind == "tensorop") return replay_tensor_op(handle, fields);
    throw std::runtime_error("unknown problem kind " + kind);
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode_name = argc >= 4 ? argv[3] : "find";
    const std::string handles = argc >= 5 ? argv[4] : "handle-each";
    if (argc < 3 || argc > 5 || (mode_name != "find" && mode_name != "immediate") ||
        (handles != "handle-each" && handles != "one-handle")) {
        std::fprintf(stderr,
                     "usage: kdbgen-miopen-replay LIBMIOPEN PROBLEMS [find|immediate [handle-each|one-handle]]\n");
        return 2;
    }
    const Mode mode = mode_name == "find" ? Mode::Find : Mode::Immediate;
    // MIOpen writes each log line to std::cerr, which flushes every insertion
    // (unitbuf) into the unbuffered stderr: a write(2) a line, at
    // MIOPEN_LOG_LEVEL=6 10^3 per problem, and as many reads and wake-ups in
    // kdbgen. Buffered here (the process shares libstdc++'s std::cerr with the
    // library), a problem's log goes out in a few writes, all before its "done"
    // line (kdbgen reads the log per problem).
    static char log_buffer[1 << 16];
    std::setvbuf(stderr, log_buffer, _IOFBF, sizeof log_buffer);
    std::cerr.unsetf(std::ios_base::unitbuf);
    Library library;
    try {
        library = load_library(argv[1]);
    } catch (const std::exception& error) {
        std::printf("load-failed %s\n", error.what());
        return 3;
    }
    lib = &library;
    std::ifstream problems(argv[2]);
    if (!problems) {
        std::fprintf(stderr, "kdbgen-miopen-replay: cannot read %s\n", argv[2]);
        return 2;
    }
    api::Handle handle = nullptr;
    if (const auto status = library.miopenCreate(&handle); status != 0) {
        std::printf("load-failed miopenCreate: %s\n", library.miopenGetErrorString(status));
        return 3;
    }
    // handle-each: MIOpen keeps the programs a handle built (KernelCache's
    // program map) and a second problem that needs one of them would never
    // look it up in the kdb. A new handle sees every lookup the problem makes,
    // as a process running that problem alone does; the library, its dbs and
    // the stub's device stay loaded.
    const bool handle_each = handles == "handle-each";
    bool fresh = true;
    std::string line;
    while (std::getline(problems, line)) {
        std::istringstream tokens(line);
        std::string id, kind, token;
        if (!(tokens >> id >> kind)) continue;
        Fields fields;
        while (tokens >> token) {
            const auto equals = token.find('=');
            if (equals != std::string::npos) fields[token.substr(0, equals)] = token.substr(equals + 1);
        }
        if (!fresh && handle_each) {
            library.miopenDestroy(handle);
            handle = nullptr;
            if (const auto status = library.miopenCreate(&handle); status != 0) {
                std::printf("load-failed miopenCreate: %s\n", library.miopenGetErrorString(status));
                return 3;
            }
        }
        fresh = false;
        std::fflush(stderr);
        std::printf("start %s\n", id.c_str());
        std::fflush(stdout);
        // For kdbgen's compiler wrapper: a compile it stops is logged against this problem.
        // Between problems no MIOpen thread reads the environment.
        setenv("KDBGEN_PROBLEM", id.c_str(), 1);
        // Fault injection for kdbgen's tests: a crash, or a hang, inside MIOpen on this problem.
        if (const char* crash = std::getenv("KDBGEN_REPLAY_CRASH_ON"); crash && id == crash) std::abort();
        if (const char* hang = std::getenv("KDBGEN_REPLAY_HANG_ON"); hang && id == hang)
            for (;;) pause();
        std::string failure;
        try {
            replay(handle, kind, fields, Notes{id}, mode);
        } catch (const std::exception& error) {
            failure = error.what();
            if (failure.empty()) failure = "failed";
        }
        std::fflush(stderr);
        if (failure.empty())
            std::printf("done %s ok\n", id.c_str());
        else
            std::printf("done %s fail %s\n", id.c_str(), failure.c_str());
        std::fflush(stdout);
    }
    library.miopenDestroy(handle);
    return 0;
}

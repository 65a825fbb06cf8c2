// Every primitive but convolutions replayed, and the dispatch by kind (replay.hpp).
#include "replay.hpp"

namespace kdbgen::replay {

namespace {

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
}  // namespace

void replay(api::Handle handle, const std::string& kind, const Fields& fields, const Notes& note, Mode mode) {
    if (kind == "conv") return replay_conv(handle, fields, note, mode);
    if (kind == "bnorm") return replay_batch_norm(handle, fields);
    if (kind == "pool") return replay_pooling(handle, fields);
    if (kind == "activ") return replay_activation(handle, fields);
    if (kind == "softmax") return replay_softmax(handle, fields);
    if (kind == "lrn") return replay_lrn(handle, fields);
    if (kind == "tensorop") return replay_tensor_op(handle, fields);
    if (replay_recurrent(handle, kind, fields)) return;
    throw std::runtime_error("unknown problem kind " + kind);
}

}  // namespace kdbgen::replay

// Recurrent networks, CTC loss and dropout (issue #50), the calls made as
// MIOpenDriver's rnn, ctc and dropout commands make them (src/engine/replay_format.cpp reads their
// flags into the line): the keys MIOpen asks its kdb for are then the driver's,
// and 3.5.1's, whose rnn command runs nothing, are reached all the same.
// PyTorch's nn.LSTM/nn.GRU on MIOpen make these calls too: the legacy RNN API
// with a descriptor per time step, and a dropout descriptor when dropout > 0.
#include "replay.hpp"

#include <algorithm>
#include <memory>
#include <numeric>

namespace kdbgen::replay {

namespace {

// miopenRNGType_t MIOPEN_RNG_PSEUDO_XORWOW (miopen.h, MIOpen 3.3.0), the one generator MIOpen has.
constexpr int kXorwow = 0;
// miopenRNNPaddingMode_t miopenRNNIOWithPadding.
constexpr int kWithPadding = 1;

// A dropout descriptor set as the drivers set theirs: its states reserved to
// MIOpen's size, which miopenSetDropoutDescriptor initialises with a kernel.
struct Dropout {
    Owned<api::DropoutDescriptor> desc;
    std::unique_ptr<Buffer> states;
    Dropout(api::Handle handle, float rate, unsigned long long seed, bool use_mask)
        : desc(create(lib->miopenCreateDropoutDescriptor, lib->miopenDestroyDropoutDescriptor,
                      "miopenCreateDropoutDescriptor")) {
        std::size_t states_bytes = 0;
        check(lib->miopenDropoutGetStatesSize(handle, &states_bytes), "miopenDropoutGetStatesSize");
        states = std::make_unique<Buffer>(states_bytes);
        check(lib->miopenSetDropoutDescriptor(desc.handle, handle, rate, states->data, states_bytes, seed, use_mask,
                                              false, kXorwow),
              "miopenSetDropoutDescriptor");
    }
};

// rnn_driver.hpp, MIOpen 3.3.0: tensors as GetandSetData makes them (:202-229: x and y of each
// time step 2-D and packed, {batch_t, in_h} and {batch_t, hid_h * directions}; h and c 3-D,
// {layers * directions, batch_0, hid_h}; the weights' descriptor from
// miopenGetRNNParamsDescriptor with the last step's x), buffers as AllocateBuffersAndCopy sizes
// them (:545-570), and the calls of RunForwardGPU (:784-860) and RunBackwardGPU (:1088-1180).
void replay_rnn(api::Handle handle, const Fields& f) {
    const int type = static_cast<int>(integer(f, "type"));
    const auto batches = numbers(field(f, "batches"));
    const int steps = static_cast<int>(batches.size());
    const long hidden = integer(f, "hidden"), input = integer(f, "input"), layers = integer(f, "layers");
    const long directions = integer(f, "bidirection") != 0 ? 2 : 1;
    std::vector<std::unique_ptr<Tensor>> owned;
    std::vector<api::TensorDescriptor> xs, ys;
    for (const long batch : batches) {
        owned.push_back(std::make_unique<Tensor>(std::vector<long>{batch, input}, type, "NCHW"));
        xs.push_back(owned.back()->desc);
        owned.push_back(std::make_unique<Tensor>(std::vector<long>{batch, hidden * directions}, type, "NCHW"));
        ys.push_back(owned.back()->desc);
    }
    Tensor h({layers * directions, batches.front(), hidden}, type, "NCHW");
    const auto rnn = create(lib->miopenCreateRNNDescriptor, lib->miopenDestroyRNNDescriptor,
                            "miopenCreateRNNDescriptor");
    const int mode = static_cast<int>(integer(f, "mode")), input_mode = static_cast<int>(integer(f, "inputmode"));
    const int direction = static_cast<int>(directions - 1), bias = static_cast<int>(integer(f, "bias"));
    const int algo = static_cast<int>(integer(f, "algo"));
    std::unique_ptr<Dropout> dropout;
    if (integer(f, "dropout") != 0) {
        dropout = std::make_unique<Dropout>(handle, std::stof(field(f, "rate")), std::stoull(field(f, "seed")), false);
        check(lib->miopenSetRNNDescriptor_V2(rnn.handle, static_cast<int>(hidden), static_cast<int>(layers),
                                             dropout->desc.handle, input_mode, direction, mode, bias, algo, type),
              "miopenSetRNNDescriptor_V2");
    } else {
        check(lib->miopenSetRNNDescriptor(rnn.handle, static_cast<int>(hidden), static_cast<int>(layers), input_mode,
                                          direction, mode, bias, algo, type),
              "miopenSetRNNDescriptor");
    }
    if (integer(f, "padding") != 0) check(lib->miopenSetRNNPaddingMode(rnn.handle, kWithPadding), "miopenSetRNNPaddingMode");
    const auto weights = create(lib->miopenCreateTensorDescriptor, lib->miopenDestroyTensorDescriptor,
                                "miopenCreateTensorDescriptor");
    check(lib->miopenGetRNNParamsDescriptor(handle, rnn.handle, xs.back(), weights.handle, type),
          "miopenGetRNNParamsDescriptor");

    std::size_t in_bytes = 0, out_bytes = 0, hidden_bytes = 0, workspace_bytes = 0, reserve_bytes = 0,
                weight_bytes = 0;
    check(lib->miopenGetRNNInputTensorSize(handle, rnn.handle, steps, xs.data(), &in_bytes),
          "miopenGetRNNInputTensorSize");
    check(lib->miopenGetRNNInputTensorSize(handle, rnn.handle, steps, ys.data(), &out_bytes),
          "miopenGetRNNInputTensorSize");
    check(lib->miopenGetRNNHiddenTensorSize(handle, rnn.handle, steps, xs.data(), &hidden_bytes),
          "miopenGetRNNHiddenTensorSize");
    check(lib->miopenGetRNNWorkspaceSize(handle, rnn.handle, steps, xs.data(), &workspace_bytes),
          "miopenGetRNNWorkspaceSize");
    check(lib->miopenGetRNNTrainingReserveSize(handle, rnn.handle, steps, xs.data(), &reserve_bytes),
          "miopenGetRNNTrainingReserveSize");
    check(lib->miopenGetRNNParamsSize(handle, rnn.handle, xs.front(), &weight_bytes, type), "miopenGetRNNParamsSize");
    Buffer x(in_bytes), y(out_bytes), hx(hidden_bytes), cx(hidden_bytes), hy(hidden_bytes), cy(hidden_bytes),
        w(weight_bytes), workspace(workspace_bytes), reserve(reserve_bytes), dx(in_bytes), dy(out_bytes),
        dhx(hidden_bytes), dcx(hidden_bytes), dhy(hidden_bytes), dcy(hidden_bytes), dw(weight_bytes);

    const long forw = integer(f, "forw");
    if (forw == 0 || (forw & 1) != 0) {
        if (integer(f, "fwdtype") == 0)
            check(lib->miopenRNNForwardTraining(handle, rnn.handle, steps, xs.data(), x.data, h.desc, hx.data, h.desc,
                                                cx.data, weights.handle, w.data, ys.data(), y.data, h.desc, hy.data,
                                                h.desc, cy.data, workspace.data, workspace_bytes, reserve.data,
                                                reserve_bytes),
                  "miopenRNNForwardTraining");
        else if (integer(f, "fwdtype") == 1)
            check(lib->miopenRNNForwardInference(handle, rnn.handle, steps, xs.data(), x.data, h.desc, hx.data,
                                                 h.desc, cx.data, weights.handle, w.data, ys.data(), y.data, h.desc,
                                                 hy.data, h.desc, cy.data, workspace.data, workspace_bytes),
                  "miopenRNNForwardInference");
    }
    if (forw == 0 || (forw & 2) != 0)
        check(lib->miopenRNNBackwardData(handle, rnn.handle, steps, ys.data(), y.data, ys.data(), dy.data, h.desc,
                                         dhy.data, h.desc, dcy.data, weights.handle, w.data, h.desc, hx.data, h.desc,
                                         cx.data, xs.data(), dx.data, h.desc, dhx.data, h.desc, dcx.data,
                                         workspace.data, workspace_bytes, reserve.data, reserve_bytes),
              "miopenRNNBackwardData");
    if (forw == 0 || (forw & 4) != 0)
        check(lib->miopenRNNBackwardWeights(handle, rnn.handle, steps, xs.data(), x.data, h.desc, hx.data, ys.data(),
                                            dy.data, weights.handle, dw.data, workspace.data, workspace_bytes,
                                            reserve.data, reserve_bytes),
              "miopenRNNBackwardWeights");
}

// dropout_driver.hpp, MIOpen 3.3.0: x and y packed (GetandSetData, :137-150), the states and the
// reserve sized by MIOpen (AllocateBuffersAndCopy, :209-250), the forward with x's own shape as
// the noise shape (RunForwardGPU, :320-334), then the backward where main.cpp runs it (forw != 1).
void replay_dropout(api::Handle handle, const Fields& f) {
    const int type = static_cast<int>(integer(f, "type"));
    const auto lengths = numbers(field(f, "x"));
    Tensor x(lengths, type, "NCHW"), y(lengths, type, "NCHW");
    std::size_t reserve_bytes = 0;
    check(lib->miopenDropoutGetReserveSpaceSize(x.desc, &reserve_bytes), "miopenDropoutGetReserveSpaceSize");
    Dropout dropout(handle, std::stof(field(f, "rate")), std::stoull(field(f, "seed")), integer(f, "mask") != 0);
    Buffer xb(x.bytes), yb(y.bytes), dxb(x.bytes), dyb(y.bytes), reserve(reserve_bytes);
    const long forw = integer(f, "forw");
    if (forw == 0 || (forw & 1) != 0)
        check(lib->miopenDropoutForward(handle, dropout.desc.handle, x.desc, x.desc, xb.data, y.desc, yb.data,
                                        reserve.data, reserve_bytes),
              "miopenDropoutForward");
    if (forw != 1)
        check(lib->miopenDropoutBackward(handle, dropout.desc.handle, x.desc, y.desc, dyb.data, x.desc, dxb.data,
                                         reserve.data, reserve_bytes),
              "miopenDropoutBackward");
}

// ctc_driver.hpp, MIOpen 3.3.0: probabilities and gradients {max input length, batch, classes
// + 1} packed float (GetandSetData, :136-152), the descriptor's type, blank and softmax (:243),
// the workspace MIOpen sizes for the labels, then miopenCTCLoss (RunForwardGPU, :350-372). The
// kernel's options hold the lengths, never the labels (src/ocl/ctcocl.cpp:226-297): labels
// count up through the classes, the blank skipped, so that no two alike follow each other and
// every label fits its input (src/ctc.cpp:62-95 refuses one that does not).
void replay_ctc(api::Handle handle, const Fields& f) {
    const auto label_lengths = ints(field(f, "labels")), input_lengths = ints(field(f, "inputs"));
    const int classes = static_cast<int>(integer(f, "classes")), blank = static_cast<int>(integer(f, "blank"));
    const long batch = static_cast<long>(label_lengths.size());
    const long steps = *std::max_element(input_lengths.begin(), input_lengths.end());
    Tensor probs({steps, batch, classes + 1L}, api::Float, "NCHW"), gradients({steps, batch, classes + 1L}, api::Float,
                                                                              "NCHW");
    const auto ctc = create(lib->miopenCreateCTCLossDescriptor, lib->miopenDestroyCTCLossDescriptor,
                            "miopenCreateCTCLossDescriptor");
    check(lib->miopenSetCTCLossDescriptor(ctc.handle, api::Float, blank, integer(f, "softmax") != 0),
          "miopenSetCTCLossDescriptor");
    std::vector<int> labels;
    int next = 0;
    for (const int length : label_lengths)
        for (int i = 0; i < length; ++i) {
            do next = next % (classes + 1) + 1; while (next == blank || next > classes);
            labels.push_back(next);
        }
    const int algo = static_cast<int>(integer(f, "algo"));
    std::size_t workspace_bytes = 0;
    check(lib->miopenGetCTCLossWorkspaceSize(handle, probs.desc, gradients.desc, labels.data(), label_lengths.data(),
                                             input_lengths.data(), algo, ctc.handle, &workspace_bytes),
          "miopenGetCTCLossWorkspaceSize");
    Buffer probs_data(probs.bytes), gradients_data(gradients.bytes), losses(static_cast<std::size_t>(batch) * 4),
        workspace(workspace_bytes);
    check(lib->miopenCTCLoss(handle, probs.desc, probs_data.data, labels.data(), label_lengths.data(),
                             input_lengths.data(), losses.data, gradients.desc, gradients_data.data, algo, ctc.handle,
                             workspace.data, workspace_bytes),
          "miopenCTCLoss");
}

}  // namespace

bool replay_recurrent(api::Handle handle, const std::string& kind, const Fields& fields) {
    if (kind == "rnn") return replay_rnn(handle, fields), true;
    if (kind == "dropout") return replay_dropout(handle, fields), true;
    if (kind == "ctc") return replay_ctc(handle, fields), true;
    return false;
}

}  // namespace kdbgen::replay

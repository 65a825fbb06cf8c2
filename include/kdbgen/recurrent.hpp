// Recurrent layers, CTC loss and dropout of a network (a description or an
// ONNX model) as the MIOpenDriver line that makes the calls a framework makes
// for them (issue #50): kdbgen has no problem type of its own for these; the
// engine replays rnn and dropout lines through MIOpen's API
// (src/engine/replay/rnn.cpp) and a ctc line through the installed driver.
#pragma once

#include "kdbgen/enumerate.hpp"

#include <optional>
#include <string>

namespace kdbgen {

struct RecurrentLayer {
    std::string mode;  // MIOpenDriver rnn's -m: lstm, gru, tanh, relu
    long batch = 1, input = 1, hidden = 1, layers = 1, steps = 1;
    bool bidirectional = false, bias = true;
    double dropout = 0;  // between layers, in training
    DataType data_type = DataType::Float;
    bool training = false;
};
// PyTorch's nn.LSTM/GRU/RNN on MIOpen: the legacy RNN API, each step the whole
// batch; training runs the forward, the backward data and weights, with a
// dropout descriptor when dropout > 0; inference the inference forward. None
// for a type MIOpen's RNN does not take (it takes float and half).
std::optional<DriverCommandProblem> rnn_problem(const RecurrentLayer& layer);

// F.ctc_loss through miopenCTCLoss: float training only. classes counts the blank.
std::optional<DriverCommandProblem> ctc_problem(long batch, long classes, long steps, long label_length, long blank,
                                                DataType data_type, bool training);

// A framework's miopenDropoutForward and Backward in training (up to 5 dimensions).
std::optional<DriverCommandProblem> dropout_problem(const std::vector<long>& dims, double rate, DataType data_type,
                                                    bool training);

}  // namespace kdbgen

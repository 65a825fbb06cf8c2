// Strict input checking shared by every problem source (network TOML,
// MIOpenDriver lines, find-db keys, ONNX models, kernel manifests, target
// lists): limits, near-miss suggestions and the checks a problem must pass
// before it is planned. A wrong input is an InputError naming the file, line,
// key and value (exit 2); nothing is planned from it, so no kernel is built for
// a problem MIOpen would never see.
#pragma once

#include "kdbgen/enumerate.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kdbgen::checks {

// Limits no real network reaches, so that a typo (repeat = 10000000) is
// refused at once instead of planning until the machine runs out of memory.
// The largest shipped network (sd15_unet) runs 150 layers per variant.
inline constexpr long kMaxRepeat = 10'000;                // one block or layer
inline constexpr std::size_t kMaxLayerRuns = 1'000'000;   // layers run per network file, all variants
inline constexpr std::size_t kMaxListValues = 64;         // batch sizes, data types, ... in a [network]
// A tensor no AMD GPU can hold: the largest has 256 GB (MI325X). MIOpen keeps
// every length and stride in an int as well (TensorDescriptor::AllDimsFitIntoInt,
// src/tensor.cpp, MIOpen 3.3.0).
inline constexpr std::int64_t kMaxTensorBytes = std::int64_t{256} << 30;
inline constexpr std::int64_t kMaxDimension = 2'147'483'647;

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(std::string_view a, std::string_view b);
// " (did you mean 'stride'?)" for the closest candidate within a third of the
// word's length (at least 1, at most 3 edits), else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates);
// "'a', 'b' or 'c'".
std::string one_of(const std::vector<std::string_view>& words);

// Bytes per element of a data type.
std::int64_t element_bytes(DataType type);
// Throws InputError (unlocated: the caller adds file:line) when a dimension
// is not positive or beyond kMaxDimension, or the tensor's bytes exceed
// kMaxTensorBytes. `what` names the tensor in the message.
void check_tensor(std::span<const long> dims, DataType type, std::string_view what);

// A convolution problem MIOpen can form: batch, channels, every spatial size,
// filter, stride and dilation at least 1, padding at least 0, groups at least
// 1 and dividing both channel counts, bias 0 or 1 (miopenInitConvolutionNdDescriptor
// refuses zero strides and dilations and negative pads, src/convolution_api.cpp;
// TensorDescriptor refuses zero lengths). Throws InputError naming the field.
void check_conv_problem(const ConvProblem& problem);
// Any problem: its own checks and every tensor within the limits.
void check_problem(const Problem& problem);

}  // namespace kdbgen::checks

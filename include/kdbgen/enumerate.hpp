// The first stage: problem configs as MIOpen serializes them. This part
// reads MIOpen find-db files (one convolution problem key per line, then the
// solvers MIOpen found best) and parses and re-serializes problem keys.
//
// Key layout: ProblemDescription::Serialize, src/conv/problem_description.cpp:188-237
// (MIOpen 3.3.0 develop 2d1fd997; same in rocm-6.2.0):
//   C-[D-]H-W-[Z x]YxX-K-[oD-]oH-oW-N-padding-strides-dilations-bias-layout(s)-types-direction[_g<groups>...]
// For backward data the "in" fields hold the output tensor, as MIOpen swaps them.
#pragma once

#include "kdbgen/util.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kdbgen {

enum class ConvDirection { Forward, BackwardData, BackwardWeights };

struct ConvProblem {
    unsigned spatial_dims = 2;          // 2 or 3
    long in_channels = 0;
    std::vector<long> in_spatial;       // [D,]H,W
    std::vector<long> weights_spatial;  // [Z,]Y,X
    long out_channels = 0;
    std::vector<long> out_spatial;
    long batch = 0;
    std::vector<long> pads, strides, dilations;
    int bias = 0;
    std::string in_layout = "NCHW", weights_layout = "NCHW", out_layout = "NCHW";
    std::string data_types = "FP32";    // EncodeDataTypesForKey: FP32, FP16, BF16, INT8INT8INT32, ...
    ConvDirection direction = ConvDirection::Forward;
    long groups = 1;
    std::string cast_suffix;            // "_ci..", "_cw..", "_co.." as in the key

    // The key MIOpen's find-db and perf-db are indexed by.
    std::string serialize() const;
};

// Throws InputError naming the key and the field that does not parse.
ConvProblem parse_conv_problem_key(std::string_view key);

struct FindDbSolver {
    std::string solver;     // e.g. ConvBinWinogradRxSf2x3
    std::string algorithm;  // e.g. miopenConvolutionFwdAlgoWinograd
    double time = 0;
    long long workspace = 0;
};

struct FindDbEntry {
    std::string key;                    // the problem key exactly as in the file
    ConvProblem problem;
    std::vector<FindDbSolver> solvers;  // best first, as MIOpen wrote them
    std::size_t line = 0;
};

// Reads a find-db (`*.HIP.fdb.txt` or `.bz2`), both line forms:
//   algorithm:solver,time,workspace,algorithm,<unused>   (older)
//   solver:time,workspace,algorithm                      (newer)
// A malformed line is an InputError with file:line and the value.
std::vector<FindDbEntry> read_find_db(const fs::path& path);
std::vector<FindDbEntry> parse_find_db(std::string_view text, const std::string& origin);

}  // namespace kdbgen

// A convolution in forward terms (x, w, y) and the problem keys MIOpen
// forms from it per direction; shared by every enumerate source.
#pragma once

#include "kdbgen/enumerate.hpp"

#include <string>
#include <vector>

namespace kdbgen {

// A convolution as MIOpenDriver describes it: x, w, y in forward terms.
struct ConvSpec {
    unsigned dims = 2;
    long n = 0, c = 0, k = 0, groups = 1;
    std::vector<long> in, filter, out, pads, strides, dilations;
    bool transpose = false, bias = false;
    std::string in_layout, w_layout, out_layout;
    std::string types;
};

inline ConvProblem make_conv_key(const ConvSpec& s, long in_c, const std::vector<long>& in_sp, long out_c,
                          const std::vector<long>& out_sp, const std::string& in_layout,
                          const std::string& out_layout, ConvDirection direction) {
    ConvProblem p;
    p.spatial_dims = s.dims;
    p.in_channels = in_c;
    p.in_spatial = in_sp;
    p.weights_spatial = s.filter;
    p.out_channels = out_c;
    p.out_spatial = out_sp;
    p.batch = s.n;
    p.pads = s.pads;
    p.strides = s.strides;
    p.dilations = s.dilations;
    // A layer's bias never reaches the key: the convolution API builds every problem with
    // ProblemDescription's default bias 0 (src/convolution_api.cpp:65, :84, :101-111;
    // src/include/miopen/conv/problem_description.hpp:122, MIOpen 3.3.0) and adds the bias with
    // a separate call; every key of every shipped find-db has bias 0.
    p.bias = 0;
    p.in_layout = in_layout;
    p.weights_layout = s.w_layout;
    p.out_layout = out_layout;
    p.data_types = s.types;
    p.direction = direction;
    p.groups = s.groups;
    return p;
}

// The keys MIOpen forms for one convolution, per direction
// (src/convolution_api.cpp:50-111): backward directions put dy first;
// transposed convolutions swap forward with backward data.
inline std::vector<ConvProblem> conv_problems(const ConvSpec& s, bool fwd, bool bwd, bool wrw) {
    std::vector<ConvProblem> out;
    const auto x = [&](ConvDirection d) {
        return make_conv_key(s, s.c, s.in, s.k, s.out, s.in_layout, s.out_layout, d);
    };
    const auto y = [&](ConvDirection d) {
        return make_conv_key(s, s.k, s.out, s.c, s.in, s.out_layout, s.in_layout, d);
    };
    if (!s.transpose) {
        if (fwd) out.push_back(x(ConvDirection::Forward));
        if (bwd) out.push_back(y(ConvDirection::BackwardData));
        if (wrw) out.push_back(y(ConvDirection::BackwardWeights));
    } else {
        if (fwd) out.push_back(x(ConvDirection::BackwardData));
        if (bwd) out.push_back(y(ConvDirection::Forward));
        if (wrw) out.push_back(x(ConvDirection::BackwardWeights));
    }
    return out;
}


}  // namespace kdbgen

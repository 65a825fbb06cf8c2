// Keys of the non-convolution primitives, and the problem set.
//
// Network-config strings written from MIOpen 3.3.0 (develop 2d1fd997):
//   batchnorm  src/batchnorm/problem_description.cpp:39-343 (WORKAROUND_SWDEV_253606 = 1 at :33)
//   pooling    src/pooling/problem_description.cpp:40-88; MLO_POOLING_OP_* src/include/miopen/mlo_internal.hpp:284-287
//   activation src/activ/problem_description.cpp:36-79
//   softmax    src/softmax/problem_description.cpp:38-78; GetDataType src/include/miopen/datatype.hpp:39
#include "kdbgen/enumerate.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace kdbgen {

namespace {

std::string x_joined(const std::vector<long>& values) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "x" : "") + std::to_string(values[i]);
    return out;
}

int flag(bool value) { return value ? 1 : 0; }


// The "fp16..fmix" run every batchnorm config has.
bool half_data_float_params(const BatchNormProblem& p) {
    return p.data_type == DataType::Half && p.param_type == DataType::Float;
}

std::string bn_type_flags(const BatchNormProblem& p) {
    const bool mix = half_data_float_params(p);
    return fmt::format("fp16{}fp32{}fp64{}fbf16{}fmix{}", flag(p.data_type == DataType::Half),
                       flag(p.data_type == DataType::Float), flag(p.data_type == DataType::Double),
                       flag(p.data_type == DataType::BFloat16), flag(mix));
}

// The work geometry of the multi-pass (variant 2) spatial kernels, forward and
// backward alike: one 1024-long column of work items per channel segment.
void set_multipass_geometry(long c, unsigned in_cstride, std::size_t& xlocalsize, std::size_t& ylocalsize,
                            std::size_t& xgridsize, std::size_t& ygridsize, unsigned& ldsgcn) {
    xlocalsize = 1;
    ylocalsize = 1024;
    const auto segment = static_cast<int>(std::ceil(double(in_cstride) / double(ylocalsize)));
    xgridsize = static_cast<std::size_t>(c);
    ygridsize = static_cast<std::size_t>(segment) * ylocalsize;
    ldsgcn = static_cast<unsigned>(ylocalsize / 64);
}

// MIOpen's in_cstride: the elements of one channel of one image (H x W, or D x H x W).
unsigned channel_stride(const BatchNormProblem& p) {
    return static_cast<unsigned>(p.x.elements() / (p.x.n() * p.x.c()));
}

std::string bn_forward_training(const BatchNormProblem& p) {
    const long n = p.x.n(), c = p.x.c();
    const unsigned in_cstride = channel_stride(p);
    const unsigned in_nhw = static_cast<unsigned>(n) * in_cstride;
    std::ostringstream ss;
    std::size_t xlocalsize = 1024;
    if ((in_cstride < 256 && n < 256) || (in_cstride < 100 && n <= 256)) xlocalsize = 256;
    std::size_t ylocalsize = 1;
    std::size_t xgridsize = static_cast<std::size_t>(c) * xlocalsize;
    std::size_t ygridsize = 1;
    const bool bfpmixparm = half_data_float_params(p);
    if (p.mode == BatchNormProblem::Mode::Spatial) {
        bool single = true;
        int variant = 1;
        unsigned ldsgcn = static_cast<unsigned>(xlocalsize / 64);
        // The multi-pass kernel: MIOpen sets it up in two places with the same values.
        const auto use_variant2 = [&] {
            variant = 2;
            single = false;
            set_multipass_geometry(c, in_cstride, xlocalsize, ylocalsize, xgridsize, ygridsize, ldsgcn);
        };
        if ((in_nhw < 33554432 && in_cstride > 1024) || (n >= 256 && in_cstride > 60 && bfpmixparm) ||
            (in_cstride > 512 && bfpmixparm)) {
            variant = 1;
        } else if (in_cstride <= 512) {
            variant = 0;
        } else {
            use_variant2();
        }
        if (n > 768 && in_cstride > 150 && p.data_type == DataType::Float) use_variant2();
        ss << "variant" << variant << "gx" << xgridsize << "gy" << ygridsize << "xl" << xlocalsize << "yl"
           << ylocalsize << "ldsgcn" << ldsgcn << "rs" << flag(p.save_results) << "rr" << flag(p.running_results)
           << bn_type_flags(p) << "single" << flag(single) << "n" << n << "c" << c << "hw" << in_cstride;
    } else {
        xlocalsize = 1;
        ylocalsize = 256;
        const std::size_t segment = (in_cstride + ylocalsize - 1) / ylocalsize;
        xgridsize = static_cast<std::size_t>(c);
        ygridsize = segment * ylocalsize;
        ss << bn_type_flags(p) << "gx" << xgridsize << "gy" << ygridsize << "lx" << xlocalsize << "ly" << ylocalsize
           << "rs" << flag(p.save_results) << "rr" << flag(p.running_results) << "segment" << segment << "n" << n
           << "c" << c << "hw" << in_cstride;
    }
    ss << "layout" << p.layout;
    return ss.str();
}

std::string bn_forward_inference(const BatchNormProblem& p) {
    const unsigned in_cstride = channel_stride(p);
    return fmt::format("{}mode{}HWdims{}C{}layout{}", bn_type_flags(p), static_cast<int>(p.mode), in_cstride,
                       p.x.c(), p.layout);
}

std::string bn_backward(const BatchNormProblem& p) {
    const long n = p.x.n(), c = p.x.c();
    const unsigned in_cstride = channel_stride(p);
    const unsigned in_nhw = static_cast<unsigned>(n) * in_cstride;
    const bool bfpmixparm = half_data_float_params(p);
    std::size_t xlocalsize = 1, ylocalsize = 1, xgridsize = 1, ygridsize = 1;
    std::ostringstream ss;
    if (p.mode == BatchNormProblem::Mode::Spatial) {
        unsigned ldsgcn = 0;
        bool single = true;
        int variant = 1;
        if (in_nhw < 32u * 1024 * 1024 && in_cstride > 1024) {
            variant = 1;
            xlocalsize = 1024;
            xgridsize = static_cast<std::size_t>(c) * xlocalsize;
            ldsgcn = static_cast<unsigned>(xlocalsize / 64);
        } else if (in_nhw < 32u * 1024 * 1024 && in_cstride > 512) {
            variant = n >= 32 ? 1 : 3;
            xlocalsize = std::min(64 * ((in_cstride + 63) / 64), 1024u);
            xgridsize = static_cast<std::size_t>(c) * xlocalsize;
            ldsgcn = static_cast<unsigned>(xlocalsize / 64);
        } else if (in_cstride <= 512) {
            if (n > 64 && in_cstride > 160) {
                variant = 3;
                xlocalsize = std::min(64 * ((in_cstride + 63) / 64), 1024u);
                xgridsize = static_cast<std::size_t>(c) * xlocalsize;
                ldsgcn = static_cast<unsigned>(xlocalsize / 64);
            } else {
                variant = 0;
                xlocalsize = p.data_type == DataType::Float ? 1024 : 256;
                xgridsize = xlocalsize * static_cast<std::size_t>(c);
                ldsgcn = static_cast<unsigned>(xlocalsize / 64);
            }
        } else {
            variant = 2;
            single = false;
            set_multipass_geometry(c, in_cstride, xlocalsize, ylocalsize, xgridsize, ygridsize, ldsgcn);
        }
        if (in_cstride < 200 && in_cstride > 60 && bfpmixparm) {
            variant = 1;
            xlocalsize = 1024;
            xgridsize = static_cast<std::size_t>(c) * xlocalsize;
            ldsgcn = static_cast<unsigned>(xlocalsize / 64);
        }
        ss << "variant" << variant << "gx" << xgridsize << "n" << n << "c" << c << "hw" << in_cstride << "gy"
           << ygridsize << "lx" << xlocalsize << "ly" << ylocalsize << "us" << flag(p.use_saved) << bn_type_flags(p)
           << "single" << flag(single) << "gcn" << ldsgcn;
    } else {
        ylocalsize = 64 >= in_cstride ? 64 : 256;
        const unsigned segment = static_cast<unsigned>(std::ceil(double(in_cstride) / double(ylocalsize)));
        xgridsize = static_cast<std::size_t>(c);
        ygridsize = segment * ylocalsize;
        ss << "gx" << xgridsize << "gy" << ygridsize << "lx" << xlocalsize << "ly" << ylocalsize << "n" << n << "c"
           << c << "hw" << in_cstride << "u" << flag(p.use_saved) << bn_type_flags(p) << "nhw" << in_nhw;
    }
    ss << "layout" << p.layout;
    return ss.str();
}

}  // namespace

std::string_view c_type_name(DataType type) {
    switch (type) {
        case DataType::Float: return "float";
        case DataType::Half: return "half";
        case DataType::BFloat16: return "bfloat16";
        case DataType::Int8: return "int8_t";
        case DataType::Int32: return "int";
        case DataType::Double: return "double";
    }
    return "?";
}

std::string_view key_name(DataType type) {
    switch (type) {
        case DataType::Half: return "FP16";
        case DataType::Float: return "FP32";
        case DataType::Int32: return "INT32";
        case DataType::Int8: return "INT8";
        case DataType::BFloat16: return "BF16";
        case DataType::Double: return "FP64";
    }
    return "?";
}

DataType parse_data_type(std::string_view name) {
    const std::string lower = to_lower(name);
    if (lower == "fp32" || lower == "float") return DataType::Float;
    if (lower == "fp16" || lower == "half") return DataType::Half;
    if (lower == "bf16" || lower == "bfp16" || lower == "bfloat16") return DataType::BFloat16;
    if (lower == "int8") return DataType::Int8;
    if (lower == "int32") return DataType::Int32;
    if (lower == "fp64" || lower == "double") return DataType::Double;
    throw InputError(fmt::format("unknown data type '{}' (known: FP32, FP16, BF16, INT8)", name));
}

long TensorShape::elements() const {
    long total = 1;
    for (const long d : dims) total *= d;
    return total;
}

std::vector<long> TensorShape::packed_strides() const {
    std::vector<long> strides(dims.size(), 1);
    for (std::size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
    return strides;
}

std::vector<long> TensorShape::packed_strides(std::string_view layout) const {
    if (layout != "NHWC" && layout != "NDHWC") return packed_strides();
    // Innermost first: C, then W, H, [D], then N.
    std::vector<long> strides(dims.size(), 1);
    long stride = dims[1];
    for (std::size_t i = dims.size() - 1; i >= 2; --i) {
        strides[i] = stride;
        stride *= dims[i];
    }
    strides[0] = stride;
    return strides;
}

std::string BatchNormProblem::network_config() const {
    switch (direction) {
        case Direction::ForwardTraining: return bn_forward_training(*this);
        case Direction::ForwardInference: return bn_forward_inference(*this);
        case Direction::Backward: return bn_backward(*this);
    }
    return {};
}

void BatchNormProblem::fold_depth() {
    if (x.dims.size() != 5) return;
    x.dims = {x.dims[0], x.dims[1], x.dims[2] * x.dims[3], x.dims[4]};
    if (layout == "NCDHW") layout = "NCHW";
    else if (layout == "NDHWC") layout = "NHWC";
}

std::string PoolingProblem::network_config() const {
    const int method = mode == Mode::Max ? 1 : mode == Mode::Average ? 0 : 3;
    std::string out = fmt::format("m{}_dt{}_ker{}_str{}_pad{}_it{}_im{}", method, static_cast<int>(data_type),
                                  x_joined(window), x_joined(strides), x_joined(pads), index_type,
                                  workspace_index_mode);
    if (direction == Direction::Forward) out += fmt::format("_is{}", flag(save_index));
    const auto x_strides = x.packed_strides(layout), y_strides = y.packed_strides(layout);
    out += fmt::format("_xd{}_xs{}_yd{}_ys{}", x_joined(x.dims), x_joined(x_strides), x_joined(y.dims),
                       x_joined(y_strides));
    if (direction == Direction::Backward)
        out += fmt::format("_dxd{}_dxs{}_dyd{}_dys{}", x_joined(x.dims), x_joined(x_strides), x_joined(y.dims),
                           x_joined(y_strides));
    return out;
}

std::string ActivationProblem::network_config() const {
    // Packed tensors take the "lite" path: the whole tensor is one row.
    const long read_len = x.elements();
    const long read_unit = read_len % 4 == 0 ? 4 : read_len % 2 == 0 ? 2 : 1;
    const long height = x.dims[x.dims.size() - 2];
    return fmt::format("activ-{}-11{}{}{}{}{}", direction == Direction::Backward ? "bwd" : "fwd",
                       static_cast<int>(data_type), mode, read_unit, read_len / read_unit, height);
}

std::string SoftmaxProblem::network_config() const {
    std::ostringstream body;
    body << "n" << x.dims[0] << "c" << x.dims[1] << "h" << x.dims[2] << "w" << x.dims[3] << c_type_name(data_type)
         << "a" << alpha << "b" << beta << "algo" << algorithm << "mode" << mode;
    body << (direction == Direction::Forward ? "xpk1ypk1" : "ypk1dypk1dxpk1");
    // MIOpen constructs its stream with "sfmfwd-"/"sfmbwd-" as the initial
    // buffer, which the writes then overwrite from position 0.
    const std::string prefix = direction == Direction::Forward ? "sfmfwd-" : "sfmbwd-";
    std::string out = body.str();
    if (out.size() < prefix.size()) out += prefix.substr(out.size());
    return out;
}

std::string LrnProblem::key() const {
    return fmt::format("lrn-{}-mode{}-n{}-a{}-b{}-k{}-{}-{}{}", direction == Direction::Forward ? "fwd" : "bwd", mode,
                       size, alpha, beta, k, x_joined(x.dims), key_name(data_type),
                       direction == Direction::Forward && save_scale ? "-scale" : "");
}

std::string TensorOpProblem::key() const {
    if (routine != Routine::OpTensor)
        return fmt::format("{}-a{}-{}", routine == Routine::SetTensor ? "settensor" : "scaletensor", x_joined(a.dims),
                           key_name(data_type));
    return fmt::format("optensor-op{}-a{}-b{}-{}", op, x_joined(a.dims), x_joined(b.dims), key_name(data_type));
}

std::string DriverCommandProblem::key() const {
    std::string line = command;
    for (const auto& argument : arguments) line += " " + argument;
    return line;
}

std::string_view problem_kind(const Problem& problem) {
    static constexpr std::string_view kNames[] = {"conv", "batchnorm", "pooling",  "activation",
                                                   "softmax", "lrn",     "tensorop", "driver"};
    return kNames[problem.index()];
}

std::string problem_key(const Problem& problem) {
    return std::visit(
        [](const auto& p) -> std::string {
            using T = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<T, ConvProblem>) return p.serialize();
            else if constexpr (std::is_same_v<T, LrnProblem> || std::is_same_v<T, TensorOpProblem> ||
                               std::is_same_v<T, DriverCommandProblem>)
                return p.key();
            else return p.network_config();
        },
        problem);
}

namespace {

// What ProblemSet indexes an entry by, and an (entry, origin) pair it has seen by.
std::string index_key_of(const Problem& problem, const std::string& key) {
    return std::string(problem_kind(problem)) + "\n" + key;
}
std::string seen_key_of(std::size_t entry, const std::string& origin) { return std::to_string(entry) + "\n" + origin; }

}  // namespace

void ProblemSet::finish_adding() {
    decltype(index_)().swap(index_);
    decltype(origin_seen_)().swap(origin_seen_);
    indexed_ = false;
}

void ProblemSet::make_index() {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        index_.emplace(index_key_of(entries_[i].problem, entries_[i].key), i);
        for (const auto& origin : entries_[i].origins) origin_seen_.insert(seen_key_of(i, origin));
    }
    indexed_ = true;
}

void ProblemSet::add(Problem problem, std::string origin) {
    if (!indexed_) make_index();
    std::string key = problem_key(problem);
    const std::string index_key = index_key_of(problem, key);
    const auto it = index_.find(index_key);
    if (it != index_.end()) {
        if (origin_seen_.insert(seen_key_of(it->second, origin)).second)
            entries_[it->second].origins.push_back(std::move(origin));
        return;
    }
    origin_seen_.insert(seen_key_of(entries_.size(), origin));
    index_.emplace(index_key, entries_.size());
    entries_.push_back({std::move(problem), std::move(key), {std::move(origin)}});
}

void ProblemSet::merge(const ProblemSet& other) {
    for (const auto& entry : other.entries_)
        for (const auto& origin : entry.origins) add(entry.problem, origin);
    for (const auto& [why, count] : other.left_out_) left_out_[why] += count;
}

std::size_t ProblemSet::count(std::string_view kind) const {
    return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(),
                                                  [&](const Entry& e) { return problem_kind(e.problem) == kind; }));
}

}  // namespace kdbgen

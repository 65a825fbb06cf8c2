// MIOpenDriver command lines, as MIOpen logs them with MIOPEN_ENABLE_LOGGING_CMD=1.
//
// Flags and defaults are MIOpenDriver's (MIOpen 3.3.0 develop 2d1fd997):
//   conv     driver/conv_driver.hpp:868-1010 (AddCmdLineArgs), output size
//            src/convolution.cpp:240-340 (GetForwardOutputTensor), padding modes
//            driver/conv_driver.hpp:1170-1193, int8 output type :816-817
//   bnorm    driver/bn_driver.hpp AddCmdLineArgs; logged by src/driver_arguments.cpp:64-112,238-271
//   pool     driver/pool_driver.hpp AddCmdLineArgs (tensors as -W NxCxHxW[,layout])
//   activ    driver/activ_driver.hpp; logged by src/activ_api.cpp:77-100 (--forw 1 fwd, 2 bwd)
//   softmax  driver/softmax_driver.hpp; logged by src/softmax_api.cpp:32-58
//   lrn      driver/lrn_driver.hpp; logged by src/lrn_api.cpp:85-110 (mode as a number)
// The conv key swaps tensors for the backward directions and for transposed
// convolutions exactly as src/convolution_api.cpp:50-111 builds ProblemDescriptions.
#include "kdbgen/enumerate.hpp"

#include "conv_spec.hpp"
#include "kdbgen/checks.hpp"
#include "kdbgen/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace kdbgen {

namespace {

struct FlagSpec {
    std::string_view name;
    char short_name;
    std::string_view default_value;
};

// Parsed flags of one command: every flag it knows, with its default.
class Flags {
public:
    Flags(std::string_view command, const std::vector<FlagSpec>& specs, const std::vector<std::string>& tokens) {
        for (const auto& spec : specs) values_[std::string(spec.name)] = std::string(spec.default_value);
        for (std::size_t i = 1; i < tokens.size(); ++i) {
            const std::string& token = tokens[i];
            const FlagSpec* spec = nullptr;
            if (token.starts_with("--")) {
                for (const auto& s : specs)
                    if (token.substr(2) == s.name) spec = &s;
            } else if (token.size() == 2 && token[0] == '-') {
                for (const auto& s : specs)
                    if (s.short_name == token[1]) spec = &s;
            }
            if (!spec) {
                std::vector<std::string_view> names;
                for (const auto& s : specs) names.push_back(s.name);
                const std::string_view bare = std::string_view(token).substr(token.find_first_not_of('-') == std::string::npos
                                                                                 ? token.size()
                                                                                 : token.find_first_not_of('-'));
                throw InputError(fmt::format("MIOpenDriver {}: unknown flag '{}'{}", command, token,
                                             token.starts_with("--") ? checks::did_you_mean(bare, names) : ""));
            }
            if (i + 1 >= tokens.size())
                throw InputError(fmt::format("MIOpenDriver {}: flag '{}' has no value", command, token));
            values_[std::string(spec->name)] = tokens[++i];
            given_.insert(std::string(spec->name));
        }
        command_ = command;
    }

    long integer(std::string_view name) const {
        const auto& text = values_.at(std::string(name));
        const auto value = parse_int(text);
        if (!value) throw InputError(fmt::format("MIOpenDriver {}: --{} '{}' is not a whole number", command_, name, text));
        // MIOpenDriver reads every number into an int (driver/InputFlags.cpp GetValueInt).
        if (*value > checks::kMaxDimension || *value < -checks::kMaxDimension)
            throw InputError(fmt::format("MIOpenDriver {}: --{} {} does not fit in an int", command_, name, text));
        return static_cast<long>(*value);
    }
    long positive(std::string_view name) const {
        const long value = integer(name);
        if (value <= 0) throw InputError(fmt::format("MIOpenDriver {}: --{} must be positive, not {}", command_, name, value));
        return value;
    }
    // One of [min, max], as MIOpenDriver's own checks demand (it exits on other values).
    long in_range(std::string_view name, long min, long max) const {
        const long value = integer(name);
        if (value < min || value > max)
            throw InputError(fmt::format("MIOpenDriver {}: --{} {} is not {}..{}", command_, name, value, min, max));
        return value;
    }
    double real(std::string_view name) const {
        const auto& text = values_.at(std::string(name));
        try {
            std::size_t used = 0;
            const double value = std::stod(text, &used);
            if (used == text.size() && std::isfinite(value)) return value;
        } catch (const std::exception&) {
        }
        throw InputError(fmt::format("MIOpenDriver {}: --{} '{}' is not a number", command_, name, text));
    }
    const std::string& text(std::string_view name) const { return values_.at(std::string(name)); }
    bool given(std::string_view name) const { return given_.count(std::string(name)) != 0; }

private:
    std::string command_;
    std::map<std::string, std::string> values_;
    std::set<std::string> given_;
};

const std::vector<FlagSpec> kConvFlags = {
    {"in_layout", 'I', ""}, {"out_layout", 'O', ""}, {"fil_layout", 'f', ""}, {"spatial_dim", '_', "2"},
    {"forw", 'F', "0"}, {"batchsize", 'n', "100"}, {"in_channels", 'c', "3"}, {"in_d", '!', "32"},
    {"in_h", 'H', "32"}, {"in_w", 'W', "32"}, {"out_channels", 'k', "32"}, {"fil_d", '@', "3"},
    {"fil_h", 'y', "3"}, {"fil_w", 'x', "3"}, {"conv_stride_d", '#', "1"}, {"conv_stride_h", 'u', "1"},
    {"conv_stride_w", 'v', "1"}, {"pad_d", '$', "0"}, {"pad_h", 'p', "0"}, {"pad_w", 'q', "0"},
    {"pad_val", 'r', "0"}, {"trans_output_pad_d", '%', "0"}, {"trans_output_pad_h", 'Y', "0"},
    {"trans_output_pad_w", 'X', "0"}, {"iter", 'i', "10"}, {"verify", 'V', "1"}, {"verification_cache", 'C', ""},
    {"time", 't', "0"}, {"wall", 'w', "0"}, {"search", 's', "0"}, {"printconv", 'P', "1"},
    {"dump_output", 'o', "0"}, {"in_data", 'd', ""}, {"weights", 'e', ""}, {"bias", 'b', ""},
    {"mode", 'm', "conv"}, {"pad_mode", 'z', "default"}, {"tensor_vect", 'Z', "0"}, {"vector_length", 'L', "1"},
    {"dilation_d", '^', "1"}, {"dilation_h", 'l', "1"}, {"dilation_w", 'j', "1"}, {"in_bias", 'a', ""},
    {"group_count", 'g', "1"}, {"dout_data", 'D', ""}, {"solution", 'S', "-1"}, {"gpualloc", 'G', "0"},
    {"in_cast_type", 'U', "-1"}, {"out_cast_type", 'T', "-1"}, {"wei_cast_type", 'R', "-1"},
};
const std::vector<FlagSpec> kBnormFlags = {
    {"forw", 'F', "0"}, {"back", 'b', "0"}, {"batchsize", 'n', "32"}, {"in_channels", 'c', "3"},
    {"in_h", 'H', "32"}, {"in_w", 'W', "32"}, {"in_d", 'D', "0"}, {"layout", 'L', ""}, {"alpha", 'A', "1.0"},
    {"beta", 'B', "0."}, {"iter", 'i', "1"}, {"verify", 'V', "1"}, {"time", 't', "0"}, {"printconv", 'P', "1"},
    {"mode", 'm', "0"}, {"save", 's', "0"}, {"run", 'r', "0"}, {"wall", 'w', "0"},
};
const std::vector<FlagSpec> kPoolFlags = {
    {"input", 'W', "100x3x32x32,NCHW"}, {"dinput", 'D', ""}, {"output", 'O', ""}, {"doutput", 'H', ""},
    {"forw", 'F', "0"}, {"win_d", 'Z', "3"}, {"win_h", 'y', "3"}, {"win_w", 'x', "3"},
    {"pool_stride_d", 's', "1"}, {"pool_stride_h", 'v', "1"}, {"pool_stride_w", 'u', "1"}, {"pad_d", 'o', "0"},
    {"pad_h", 'p', "0"}, {"pad_w", 'q', "0"}, {"pad_val", 'r', "0"}, {"index_position", 'M', "0"},
    {"iter", 'i', "10"}, {"verify", 'V', "1"}, {"time", 't', "0"}, {"wall", 'w', "0"}, {"print", 'P', "1"},
    {"mode", 'm', "max"}, {"pad_mode", 'z', "default"}, {"index_type", 'I', "miopenIndexUint8"},
    {"in_data", 'j', ""}, {"out_data", 'k', ""}, {"dump_root", 'l', ""},
};
const std::vector<FlagSpec> kActivFlags = {
    {"forw", 'F', "0"}, {"batchsize", 'n', "100"}, {"in_channels", 'c', "3"}, {"in_h", 'H', "32"},
    {"in_w", 'W', "32"}, {"mode", 'm', "3"}, {"alpha", 'A', "1"}, {"beta", 'B', "1"}, {"gamma", 'G', "1"},
    {"iter", 'i', "10"}, {"verify", 'V', "1"}, {"time", 't', "0"}, {"wall", 'w', "0"},
};
const std::vector<FlagSpec> kSoftmaxFlags = {
    {"forw", 'F', "0"}, {"batchsize", 'n', "100"}, {"in_channels", 'c', "3"}, {"in_h", 'H', "32"},
    {"in_w", 'W', "32"}, {"alpha", 'A', "1.0"}, {"beta", 'B', "0.0"}, {"algorithm", 'a', "1"}, {"mode", 'm', "1"},
    {"iter", 'i', "10"}, {"verify", 'V', "1"}, {"time", 't', "0"}, {"wall", 'w', "0"},
};
const std::vector<FlagSpec> kLrnFlags = {
    {"forw", 'F', "0"}, {"batchsize", 'n', "100"}, {"in_channels", 'c', "3"}, {"in_h", 'H', "32"},
    {"in_w", 'W', "32"}, {"lrnN", 'N', "5"}, {"alpha", 'A', "0.001"}, {"beta", 'B', "0.75"}, {"lrnK", 'K', "1.0"},
    {"iter", 'i', "10"}, {"verify", 'V', "1"}, {"time", 't', "0"}, {"wall", 'w', "0"}, {"back", 'b', "1"},
    {"printconv", 'P', "1"}, {"mode", 'm', "within"},
};
// driver/tensorop_driver.hpp:133-158 (MIOpen 3.3.0).
const std::vector<FlagSpec> kTensorOpFlags = {
    {"forw", 'F', "1"}, {"batchsize", 'n', "64"}, {"in_channels", 'c', "3"}, {"in_h", 'H', "32"},
    {"in_w", 'W', "32"}, {"alpha1", 'A', "1"}, {"alpha2", 'B', "1"}, {"beta", 'G', "0"}, {"iter", 'i', "10"},
    {"verify", 'V', "1"}, {"time", 't', "0"}, {"wall", 'w', "0"}, {"tensor_op", 'o', "0"}, {"tensor_val", 'v', "1"},
};

}  // namespace

namespace {

// The layouts kdbgen plans (MIOpenDriver's tensors of 4 or 5 dimensions): any other
// text would pass through to a problem key no MIOpen run forms.
void check_layout(const std::string& command, const char* flag, const std::string& layout, std::size_t rank) {
    static const std::vector<std::string> kFour = {"NCHW", "NHWC"}, kFive = {"NCDHW", "NDHWC"};
    const auto& known = rank == 5 ? kFive : kFour;
    if (std::find(known.begin(), known.end(), layout) == known.end())
        throw InputError(fmt::format("MIOpenDriver {}: {} layout '{}' is not one of {} (for {}-D tensors)", command, flag,
                                     layout, join(known, ", "), rank));
}

std::vector<Problem> parse_conv(const std::string& command, const std::vector<std::string>& tokens) {
    const Flags f(command, kConvFlags, tokens);
    ConvSpec s;
    if (command == "conv") s.types = "FP32";
    else if (command == "convfp16") s.types = "FP16";
    else if (command == "convbfp16") s.types = "BF16";
    else s.types = "INT8INT8INT32";  // convint8: y is miopenInt32 (conv_driver.hpp:816-817)
    const long spatial = f.integer("spatial_dim");
    if (spatial != 2 && spatial != 3)
        throw InputError(fmt::format("MIOpenDriver {}: --spatial_dim must be 2 or 3, not {}", command, spatial));
    s.dims = static_cast<unsigned>(spatial);
    // A logged 3-D line always carries its depths (src/driver_arguments.cpp:177-195, MIOpen 3.3.0);
    // without them MIOpenDriver would run its defaults (--in_d 32, --fil_d 3), a problem no log asked for.
    if (s.dims == 3)
        for (const char* depth : {"in_d", "fil_d"})
            if (!f.given(depth))
                throw InputError(fmt::format("MIOpenDriver {}: --spatial_dim 3 without --{}: a 3-D line must give the "
                                             "depth of its input and filter",
                                             command, depth));
    const auto dhw = [&](const char* d, const char* h, const char* w, bool positive) {
        std::vector<long> v;
        if (s.dims == 3) v.push_back(positive ? f.positive(d) : f.integer(d));
        v.push_back(positive ? f.positive(h) : f.integer(h));
        v.push_back(positive ? f.positive(w) : f.integer(w));
        return v;
    };
    s.n = f.positive("batchsize");
    s.c = f.positive("in_channels");
    s.k = f.positive("out_channels");
    s.groups = f.positive("group_count");
    s.in = dhw("in_d", "in_h", "in_w", true);
    s.filter = dhw("fil_d", "fil_h", "fil_w", true);
    s.pads = dhw("pad_d", "pad_h", "pad_w", false);
    s.strides = dhw("conv_stride_d", "conv_stride_h", "conv_stride_w", true);
    s.dilations = dhw("dilation_d", "dilation_h", "dilation_w", true);
    const auto trans_pads = dhw("trans_output_pad_d", "trans_output_pad_h", "trans_output_pad_w", false);
    for (const long p : s.pads)
        if (p < 0) throw InputError(fmt::format("MIOpenDriver {}: negative padding {}", command, p));
    const std::string& mode = f.text("mode");
    if (mode != "conv" && mode != "trans")
        throw InputError(fmt::format("MIOpenDriver {}: --mode '{}' is not conv or trans", command, mode));
    s.transpose = mode == "trans";
    s.bias = !f.text("bias").empty() && f.text("bias") != "0";
    const std::string default_layout = s.dims == 3 ? "NCDHW" : "NCHW";
    s.in_layout = f.text("in_layout").empty() ? default_layout : f.text("in_layout");
    s.w_layout = f.text("fil_layout").empty() ? s.in_layout : f.text("fil_layout");
    s.out_layout = f.text("out_layout").empty() ? s.in_layout : f.text("out_layout");
    for (const auto& [flag, layout] : {std::pair{"-I", s.in_layout}, {"-f", s.w_layout}, {"-O", s.out_layout}})
        check_layout(command, flag, layout, s.dims + 2);
    if (s.c % s.groups != 0 || s.k % s.groups != 0)
        throw InputError(fmt::format("MIOpenDriver {}: channels {} and {} are not divisible by {} groups", command,
                                     s.c, s.k, s.groups));

    const std::string& pad_mode = f.text("pad_mode");
    if (pad_mode != "default" && pad_mode != "same" && pad_mode != "valid")
        throw InputError(fmt::format("MIOpenDriver {}: --pad_mode '{}' is not default, same or valid", command, pad_mode));
    const bool unit_dilation = std::all_of(s.dilations.begin(), s.dilations.end(), [](long d) { return d == 1; });
    const bool unit_filter = std::all_of(s.filter.begin(), s.filter.end(), [](long d) { return d == 1; });
    if (!s.transpose && (unit_dilation || unit_filter)) {
        for (unsigned i = 0; i < s.dims; ++i) {
            if (pad_mode == "same") {
                const long r = s.in[i] % s.strides[i];
                s.pads[i] = (r == 0 ? std::max(s.filter[i] - s.strides[i], 0L) : std::max(s.filter[i] - r, 0L)) / 2;
            } else if (pad_mode == "valid") {
                s.pads[i] = 0;
            }
        }
    }
    for (unsigned i = 0; i < s.dims; ++i) {
        long size = 0;
        if (!s.transpose && unit_dilation && pad_mode == "same") {
            size = (s.in[i] + s.strides[i] - 1) / s.strides[i];
        } else if (!s.transpose && unit_dilation && pad_mode == "valid") {
            size = (s.in[i] - s.filter[i] + 1 + s.strides[i] - 1) / s.strides[i];
        } else if (s.transpose) {
            size = std::max(1L, s.strides[i] * (s.in[i] - 1) + 1 + s.dilations[i] * (s.filter[i] - 1) - 2 * s.pads[i] +
                                    trans_pads[i]);
        } else {
            size = (s.in[i] + 2 * s.pads[i] - s.dilations[i] * (s.filter[i] - 1) - 1) / s.strides[i] + 1;
        }
        if (size <= 0)
            throw InputError(fmt::format("MIOpenDriver {}: output size {} in dimension {} (input {}, filter {}, pad {}, "
                                         "stride {})",
                                         command, size, i, s.in[i], s.filter[i], s.pads[i], s.strides[i]));
        s.out.push_back(size);
    }
    const long forw = f.integer("forw");
    if (forw < 0 || forw > 7) throw InputError(fmt::format("MIOpenDriver {}: --forw {} is not 0..7", command, forw));
    // 0 runs all three; otherwise a bit mask of Fwd 1, Bwd 2, WrW 4 (driver_arguments.hpp:45-50).
    const bool all = forw == 0;
    std::vector<Problem> out;
    for (auto& p : conv_problems(s, all || (forw & 1), all || (forw & 2), all || (forw & 4))) out.push_back(p);
    return out;
}

TensorShape nchw(const Flags& f) {
    return TensorShape{{f.positive("batchsize"), f.positive("in_channels"), f.positive("in_h"), f.positive("in_w")}};
}

std::vector<Problem> parse_bnorm(const std::string& command, const std::vector<std::string>& tokens,
                                 DriverLineSource source) {
    const Flags f(command, kBnormFlags, tokens);
    BatchNormProblem base;
    if (command == "bnorm") base.data_type = base.param_type = DataType::Float;
    else if (command == "bnormfp16") base.data_type = base.param_type = DataType::Half;
    else if (command == "bnormfp16fp32") base.data_type = DataType::Half, base.param_type = DataType::Float;
    else if (command == "bnormbfp16") base.data_type = base.param_type = DataType::BFloat16;
    else base.data_type = DataType::BFloat16, base.param_type = DataType::Float;
    std::vector<long> dims{f.positive("batchsize"), f.positive("in_channels")};
    // -D 0 (the default) is a 4-D tensor (driver/bn_driver.hpp:290,331-337); a negative depth is no tensor.
    if (f.in_range("in_d", 0, checks::kMaxDimension) > 0) dims.push_back(f.integer("in_d"));
    dims.push_back(f.positive("in_h"));
    dims.push_back(f.positive("in_w"));
    base.x = TensorShape{dims};
    const long mode = f.integer("mode");
    if (mode != 0 && mode != 1) throw InputError(fmt::format("MIOpenDriver {}: --mode {} is not 0 or 1", command, mode));
    base.mode = mode == 1 ? BatchNormProblem::Mode::Spatial : BatchNormProblem::Mode::PerActivation;
    base.layout = f.text("layout").empty() ? (dims.size() == 5 ? "NCDHW" : "NCHW") : f.text("layout");
    check_layout(command, "-L", base.layout, dims.size());
    base.fold_depth();
    // -s and -r mean different things to the two programs that use them (MIOpen 3.3.0):
    //  - MIOpen's command logger, BnDriverInfo (src/driver_arguments.cpp:91-113), writes -s 1 when the
    //    running mean/variance are given (for inference: the estimated ones, src/batch_norm_api.cpp:234-241)
    //    and -r 1 when the saved mean/inverse variance are (backward: the saved ones it uses, :391-398);
    //  - MIOpenDriver reads -s as saveMeanVar (save mean and inverse variance; backward: use them) and -r
    //    as keepRunningMeanVar (keep running mean/variance; inference: use them as the estimates)
    //    (driver/bn_driver.hpp:306-316, 441-466, runGPUFwdInference/runGPUFwdTrain :596-720).
    // A line with MIOpen's logger prefix is read the logger's way, any other line as MIOpenDriver runs it.
    const bool s_flag = f.in_range("save", 0, 1) == 1, r_flag = f.in_range("run", 0, 1) == 1;
    const bool logged = source == DriverLineSource::Logged;
    const bool running = logged ? s_flag : r_flag;  // running mean/variance; inference: estimated ones given
    const bool saved = logged ? r_flag : s_flag;    // saved mean/inverse variance (written, or used by backward)
    base.running_results = running;
    base.save_results = saved;
    base.use_saved = saved;
    std::vector<Problem> out;
    const long forw = f.in_range("forw", 0, 2);
    const long back = f.in_range("back", 0, 1);
    if (forw == 1) {
        auto p = base;
        p.direction = BatchNormProblem::Direction::ForwardTraining;
        out.push_back(p);
    } else if (forw == 2 && running) {
        auto p = base;
        p.direction = BatchNormProblem::Direction::ForwardInference;
        out.push_back(p);
    } else if (forw == 2) {
        // Inference without estimated mean/variance: BatchNormForwardInference recomputes them with the
        // training kernel, passing no running or saved results (src/ocl/batchnormocl.cpp:206-281, the
        // else branch :259-281): MIOpenBatchNormFwdTrainSpatial.cl with MIO_SAVE_MEAN_VARIANCE=0 and
        // MIO_RUNNING_RESULT=0.
        auto p = base;
        p.direction = BatchNormProblem::Direction::ForwardTraining;
        p.running_results = p.save_results = false;
        out.push_back(p);
    }
    if (back == 1) {
        auto p = base;
        p.direction = BatchNormProblem::Direction::Backward;
        out.push_back(p);
    }
    if (out.empty()) throw InputError(fmt::format("MIOpenDriver {}: neither --forw nor --back selects a direction", command));
    return out;
}

std::vector<long> parse_tensor_flag(const std::string& command, const std::string& text, std::string* layout) {
    const auto comma = text.find(',');
    if (layout) *layout = comma == std::string::npos ? "" : text.substr(comma + 1);
    std::vector<long> dims;
    for (const auto& part : split(std::string_view(text).substr(0, comma), 'x')) {
        const auto value = parse_int(part);
        if (!value || *value <= 0) throw InputError(fmt::format("MIOpenDriver {}: tensor '{}' is not NxCxHxW", command, text));
        dims.push_back(static_cast<long>(*value));
    }
    if (dims.size() != 4 && dims.size() != 5)
        throw InputError(fmt::format("MIOpenDriver {}: tensor '{}' has {} dimensions, not 4 or 5", command, text, dims.size()));
    return dims;
}

std::vector<Problem> parse_pool(const std::string& command, const std::vector<std::string>& tokens) {
    const Flags f(command, kPoolFlags, tokens);
    PoolingProblem p;
    p.data_type = command == "poolfp16" ? DataType::Half : DataType::Float;
    std::string layout;
    p.x = TensorShape{parse_tensor_flag(command, f.text("input"), &layout)};
    const bool three_d = p.x.dims.size() == 5;
    // After the comma: a layout (MIOpenDriver), or strides (MIOpen's own log of the call,
    // src/pooling_api.cpp), which must be those of a packed layout.
    const std::string packed = three_d ? "NCDHW" : "NCHW", channels_last = three_d ? "NDHWC" : "NHWC";
    if (layout.empty()) {
        layout = packed;
    } else if (std::isdigit(static_cast<unsigned char>(layout[0]))) {
        std::vector<long> strides;
        for (const auto& part : split(layout, 'x')) strides.push_back(std::strtol(std::string(part).c_str(), nullptr, 10));
        if (strides == p.x.packed_strides(packed)) layout = packed;
        else if (strides == p.x.packed_strides(channels_last)) layout = channels_last;
        else throw InputError(fmt::format("MIOpenDriver {}: -W strides {} are not those of a packed {} or {} tensor",
                                          command, layout, packed, channels_last));
    }
    check_layout(command, "-W", layout, p.x.dims.size());
    p.layout = layout;
    const auto dhw = [&](const char* d, const char* h, const char* w, bool positive) {
        std::vector<long> v;
        if (three_d) v.push_back(positive ? f.positive(d) : f.integer(d));
        v.push_back(positive ? f.positive(h) : f.integer(h));
        v.push_back(positive ? f.positive(w) : f.integer(w));
        return v;
    };
    p.window = dhw("win_d", "win_h", "win_w", true);
    p.strides = dhw("pool_stride_d", "pool_stride_h", "pool_stride_w", true);
    p.pads = dhw("pad_d", "pad_h", "pad_w", false);
    const std::string& mode = f.text("mode");
    if (mode == "max") p.mode = PoolingProblem::Mode::Max;
    else if (mode == "avg") p.mode = PoolingProblem::Mode::Average;
    else if (mode == "avg_in") p.mode = PoolingProblem::Mode::AverageInclusive;
    else throw InputError(fmt::format("MIOpenDriver {}: --mode '{}' is not max, avg or avg_in", command, mode));
    static const std::vector<std::string> kIndexTypes = {"miopenIndexUint8", "miopenIndexUint16", "miopenIndexUint32",
                                                         "miopenIndexUint64"};
    const auto it = std::find(kIndexTypes.begin(), kIndexTypes.end(), f.text("index_type"));
    if (it == kIndexTypes.end())
        throw InputError(fmt::format("MIOpenDriver {}: --index_type '{}' unknown", command, f.text("index_type")));
    p.index_type = static_cast<int>(it - kIndexTypes.begin());
    // driver/pool_driver.hpp:316-319: 3-D pooling always uses image indices.
    p.workspace_index_mode = p.x.dims.size() == 5 ? 1 : static_cast<int>(f.integer("index_position"));
    std::vector<long> y{p.x.dims[0], p.x.dims[1]};
    const auto spatial = p.x.spatial();
    for (std::size_t i = 0; i < spatial.size(); ++i) {
        const long size = (spatial[i] + 2 * p.pads[i] - p.window[i]) / p.strides[i] + 1;
        if (size <= 0) throw InputError(fmt::format("MIOpenDriver {}: pooling output size {} in dimension {}", command, size, i));
        y.push_back(size);
    }
    p.y = TensorShape{y};
    const long forw = f.integer("forw");
    std::vector<Problem> out;
    auto fwd = p;
    fwd.direction = PoolingProblem::Direction::Forward;
    fwd.save_index = forw == 0;  // the driver saves indices when it runs backward too
    out.push_back(fwd);
    if (forw == 0) {
        auto bwd = p;
        bwd.direction = PoolingProblem::Direction::Backward;
        out.push_back(bwd);
    }
    return out;
}

// activ, softmax: --forw 0 runs both directions, 1 forward only, 2 backward only.
template <typename P>
std::vector<Problem> forward_and_or_backward(P p, long forw) {
    std::vector<Problem> out;
    if (forw == 0 || forw == 1) out.push_back(p);
    if (forw == 0 || forw == 2) {
        p.direction = P::Direction::Backward;
        out.push_back(p);
    }
    return out;
}

std::vector<Problem> parse_activ(const std::string& command, const std::vector<std::string>& tokens) {
    const Flags f(command, kActivFlags, tokens);
    ActivationProblem p;
    p.data_type = command == "activfp16" ? DataType::Half : DataType::Float;
    p.x = nchw(f);
    p.mode = static_cast<int>(f.integer("mode"));
    p.alpha = f.real("alpha");
    p.beta = f.real("beta");
    p.gamma = f.real("gamma");
    if (p.mode < 0 || p.mode > 9) throw InputError(fmt::format("MIOpenDriver {}: --mode {} is not 0..9", command, p.mode));
    return forward_and_or_backward(p, f.in_range("forw", 0, 2));
}

std::vector<Problem> parse_softmax(const std::string& command, const std::vector<std::string>& tokens) {
    const Flags f(command, kSoftmaxFlags, tokens);
    SoftmaxProblem p;
    p.data_type = command == "softmaxfp16" ? DataType::Half : DataType::Float;
    p.x = nchw(f);
    p.algorithm = static_cast<int>(f.integer("algorithm"));
    p.mode = static_cast<int>(f.integer("mode"));
    p.alpha = static_cast<float>(f.real("alpha"));
    p.beta = static_cast<float>(f.real("beta"));
    if (p.algorithm < 0 || p.algorithm > 2 || p.mode < 0 || p.mode > 1)
        throw InputError(fmt::format("MIOpenDriver {}: --algorithm {} / --mode {} out of range", command, p.algorithm, p.mode));
    return forward_and_or_backward(p, f.in_range("forw", 0, 2));
}

std::vector<Problem> parse_lrn(const std::string& command, const std::vector<std::string>& tokens) {
    const Flags f(command, kLrnFlags, tokens);
    LrnProblem p;
    p.data_type = command == "lrnfp16" ? DataType::Half : DataType::Float;
    p.x = nchw(f);
    p.size = f.positive("lrnN");
    p.alpha = f.real("alpha");
    p.beta = f.real("beta");
    p.k = f.real("lrnK");
    const std::string& mode = f.text("mode");
    if (mode == "within" || mode == "within_channel" || mode == "0") p.mode = 0;
    else if (mode == "cross" || mode == "cross_channel" || mode == "1") p.mode = 1;
    else throw InputError(fmt::format("MIOpenDriver {}: --mode '{}' is not within or cross", command, mode));
    const long forw = f.integer("forw");
    p.save_scale = forw == 0 || forw == 2;  // driver/lrn_driver.hpp:129
    std::vector<Problem> out;
    if (forw == 0 || forw == 1) out.push_back(p);
    if ((forw == 0 && f.integer("back") == 1) || forw == 2) {
        p.direction = LrnProblem::Direction::Backward;
        out.push_back(p);
    }
    return out;
}

// tensorop: -o 0 SetTensor, 1 ScaleTensor, 2-5 OpTensor add/mul/min/max, on three
// n x c x H x W tensors (tensorop_driver.hpp:119-128, :148-153).
std::vector<Problem> parse_tensorop(const std::string& command, const std::vector<std::string>& tokens) {
    const Flags f(command, kTensorOpFlags, tokens);
    TensorOpProblem p;
    p.data_type = command == "tensoropfp16" ? DataType::Half : DataType::Float;
    p.a = p.b = TensorShape{{f.positive("batchsize"), f.positive("in_channels"), f.positive("in_h"), f.positive("in_w")}};
    const long op = f.integer("tensor_op");
    if (op < 0 || op > 5) throw InputError(fmt::format("MIOpenDriver {}: --tensor_op {} is not 0..5", command, op));
    if (op == 0) p.routine = TensorOpProblem::Routine::SetTensor;
    else if (op == 1) p.routine = TensorOpProblem::Routine::ScaleTensor;
    else p.op = static_cast<int>(op - 2);
    return {p};
}

}  // namespace

namespace {

// A command MIOpenDriver 3.3 to 3.5 accepts that kdbgen has no problem model
// for (issue #50): it must pass ParseBaseArg's list (driver/driver.hpp:331-354
// in MIOpen 3.3.0, the valid_args list of driver.hpp:409-496 in 3.5.1) and have
// a driver registered (driver/dm_*.cpp); driver_flags.cpp has their flags.
// The flags stay as written: the drivers of one command differ between
// versions (Debian's 3.5.1 layernorm takes --in_d/--in_c/--in_h, 3.3.0's
// --input), and the installed driver is what runs the line. Only the flags
// that steer the run and no kernel (iterations, verification, timing, dumps)
// are left out where the table names them without doubt, so the same work is
// one problem; the engine runs it once, unverified (driver_format.cpp).
bool is_run_control(std::string_view flag) {
    return flag == "iter" || flag == "verify" || flag == "time" || flag == "wall" || flag == "dump_output" ||
           flag == "verify_path" || flag == "gen_file";
}

std::optional<DriverCommandProblem> parse_other_command(const std::vector<std::string>& tokens) {
    const auto& table = driver_flag_table();
    const auto flags = table.find(tokens.front());
    if (flags == table.end()) return std::nullopt;
    DriverCommandProblem problem;
    problem.command = tokens.front();
    for (std::size_t i = 1; i < tokens.size(); i += 2) {
        const std::string& flag = tokens[i];
        if (flag.size() < 2 || flag[0] != '-')
            throw InputError(fmt::format("MIOpenDriver {}: '{}' is not a flag (-x or --name)", problem.command, flag));
        if (i + 1 >= tokens.size())
            throw InputError(fmt::format("MIOpenDriver {}: the flag '{}' has no value", problem.command, flag));
        const bool long_name = flag.starts_with("--");
        if (!long_name && flag.size() != 2)
            throw InputError(fmt::format("MIOpenDriver {}: '{}' is not a flag (-x or --name)", problem.command, flag));
        std::vector<const DriverFlag*> meant;
        for (const auto& f : flags->second)
            if (long_name ? flag.substr(2) == f.name : f.shorts.find(flag[1]) != std::string::npos) meant.push_back(&f);
        if (meant.size() == 1 && is_run_control(meant.front()->name)) continue;
        problem.arguments.push_back(flag);
        problem.arguments.push_back(tokens[i + 1]);
    }
    return problem;
}

}  // namespace

// The command's problems as the flags give them; parse_driver_command checks them.
std::vector<Problem> parse_driver_command_unchecked(std::string_view command_line, DriverLineSource source);

std::vector<Problem> parse_driver_command(std::string_view command_line, DriverLineSource source) {
    auto problems = parse_driver_command_unchecked(command_line, source);
    for (const auto& problem : problems) checks::check_problem(problem);
    return problems;
}

namespace {

bool has_logger_prefix(std::string_view before_driver) {
    // "MIOpen(HIP): Command [LogCmdBNorm] ./bin/MIOpenDriver ...", LoggingPrefix() and
    // MIOPEN_LOG_DRIVER_COMMAND (src/logger.cpp:179-198, src/include/miopen/logger.hpp:407-420, 3.3.0);
    // the prefix may carry a process id before and an elapsed time inside.
    const auto at = before_driver.find("MIOpen(");
    return at != std::string_view::npos && before_driver.find(": Command [", at) != std::string_view::npos;
}

}  // namespace

std::vector<Problem> parse_driver_command_unchecked(std::string_view command_line, DriverLineSource source) {
    const auto tokens = split_spaces(command_line);
    if (tokens.empty()) throw InputError("empty MIOpenDriver command");
    const std::string& command = tokens[0];
    if (command == "conv" || command == "convfp16" || command == "convbfp16" || command == "convint8")
        return parse_conv(command, tokens);
    if (command.starts_with("bnorm") && (command == "bnorm" || command == "bnormfp16" || command == "bnormfp16fp32" ||
                                         command == "bnormbfp16" || command == "bnormbfp16fp32"))
        return parse_bnorm(command, tokens, source);
    if (command == "pool" || command == "poolfp16") return parse_pool(command, tokens);
    if (command == "activ" || command == "activfp16") return parse_activ(command, tokens);
    if (command == "softmax" || command == "softmaxfp16") return parse_softmax(command, tokens);
    if (command == "lrn" || command == "lrnfp16") return parse_lrn(command, tokens);
    if (command == "tensorop" || command == "tensoropfp16") return parse_tensorop(command, tokens);
    if (auto other = parse_other_command(tokens)) return {std::move(*other)};
    throw InputError(fmt::format("unsupported MIOpenDriver command '{}': no MIOpenDriver 3.3 to 3.5 accepts it (kdbgen "
                                 "reads conv, convfp16, convbfp16, convint8, bnorm*, pool, poolfp16, activ, activfp16, "
                                 "softmax, softmaxfp16, lrn, lrnfp16, tensorop, tensoropfp16 into problems of its own, and "
                                 "MIOpenDriver's other commands as they are, for the engine to replay)",
                                 command));
}


ProblemSet parse_driver_log(std::string_view text, const std::string& origin) {
    ProblemSet set;
    std::size_t number = 0;
    for (const auto& line : split(text, '\n')) {
        ++number;
        // "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 ..."
        const auto at = line.find("MIOpenDriver");
        if (at == std::string::npos) continue;
        auto rest = std::string_view(line).substr(at + std::string_view("MIOpenDriver").size());
        if (rest.starts_with(".exe")) rest.remove_prefix(4);
        if (rest.empty() || !std::isspace(static_cast<unsigned char>(rest.front()))) continue;
        const auto source = has_logger_prefix(std::string_view(line).substr(0, at)) ? DriverLineSource::Logged
                                                                                     : DriverLineSource::HandWritten;
        // MIOpen logs ASCII: bytes that are not UTF-8 in a command are damage, and would
        // reach kernel options and JSON reports.
        if (const auto bad = first_invalid_utf8(rest))
            throw InputError(located(origin, number, fmt::format("byte 0x{:02x} at column {} is not UTF-8 text",
                                                                 static_cast<unsigned char>(rest[*bad]),
                                                                 static_cast<std::size_t>(rest.data() - line.data()) + *bad + 1)));
        try {
            for (auto& problem : parse_driver_command(trim(rest), source))
                set.add(std::move(problem), fmt::format("{}:{}", origin, number));
        } catch (const InputError& e) {
            throw InputError(located(origin, number, e.what()));
        }
    }
    return set;
}

ProblemSet read_driver_log(const fs::path& path) {
    return parse_driver_log(read_text_maybe_bz2(path), path.string());
}

}  // namespace kdbgen

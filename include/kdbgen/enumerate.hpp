// The first stage: what a user knows about their networks in, the exact
// problem configs MIOpen will see out. Sources: network descriptions (TOML),
// MIOpenDriver command logs, find-db files and ONNX models; every config
// remembers where it came from.
//
// Key layout: ProblemDescription::Serialize, src/conv/problem_description.cpp:188-237
// (MIOpen 3.3.0 develop 2d1fd997; same in rocm-6.2.0):
//   C-[D-]H-W-[Z x]YxX-K-[oD-]oH-oW-N-padding-strides-dilations-bias-layout(s)-types-direction[_g<groups>...]
// For backward data the "in" fields hold the output tensor, as MIOpen swaps them.
#pragma once

#include "kdbgen/util.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <span>
#include <stdexcept>
#include <unordered_set>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kdbgen {

enum class ConvDirection { Forward, BackwardData, BackwardWeights };

// A convolution's values per spatial dimension ([D,]H,W): at most three, held inline. The
// built-in corpus holds 2.4 * 10^5 problems of six of them each; as vectors they were six
// allocations a problem, a fifth of the corpus' memory.
class Dims {
public:
    static constexpr std::size_t kMax = 3;
    Dims() = default;
    Dims(std::initializer_list<long> values) : Dims(values.begin(), values.end()) {}
    template <std::input_iterator Iterator>
    Dims(Iterator first, Iterator last) {
        for (; first != last; ++first) push_back(*first);
    }
    Dims(const std::vector<long>& values) : Dims(values.begin(), values.end()) {}

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    long* data() { return values_.data(); }
    const long* data() const { return values_.data(); }
    long* begin() { return data(); }
    long* end() { return data() + size_; }
    const long* begin() const { return data(); }
    const long* end() const { return data() + size_; }
    long& operator[](std::size_t i) { return values_[i]; }
    long operator[](std::size_t i) const { return values_[i]; }
    long front() const { return values_[0]; }
    long back() const { return values_[size_ - 1]; }
    // More than kMax is a caller's bug: keys and networks are checked for 2 or 3 dimensions first.
    void push_back(long value) {
        if (size_ == kMax) throw std::length_error("more than three spatial dimensions");
        values_[size_++] = value;
    }
    void clear() { size_ = 0; }
    std::vector<long> to_vector() const { return {begin(), end()}; }
    friend bool operator==(const Dims& a, const Dims& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

private:
    std::array<long, kMax> values_{};
    std::uint8_t size_ = 0;
};

struct ConvProblem {
    unsigned spatial_dims = 2;          // 2 or 3
    long in_channels = 0;
    Dims in_spatial;                    // [D,]H,W
    Dims weights_spatial;               // [Z,]Y,X
    long out_channels = 0;
    Dims out_spatial;
    long batch = 0;
    Dims pads, strides, dilations;
    int bias = 0;
    std::string in_layout = "NCHW", weights_layout = "NCHW", out_layout = "NCHW";
    std::string data_types = "FP32";    // EncodeDataTypesForKey: FP32, FP16, BF16, INT8INT8INT32, ...
    ConvDirection direction = ConvDirection::Forward;
    long groups = 1;
    std::string cast_suffix;            // "_ci..", "_cw..", "_co.." as in the key

    // The key MIOpen's find-db and perf-db are indexed by.
    std::string serialize() const;
    bool operator==(const ConvProblem&) const = default;
};

// Throws InputError naming the key and the field that does not parse.
ConvProblem parse_conv_problem_key(std::string_view key);

// miopenDataType_t (include/miopen/miopen.h:368-384, MIOpen 3.3.0) for the
// types networks run in; the value is what MIOpen streams into network configs.
enum class DataType : int { Half = 0, Float = 1, Int32 = 2, Int8 = 3, BFloat16 = 5, Double = 6 };
// The names in problem keys (GetDataTypeName): FP16, FP32, INT32, INT8, BF16, FP64.
std::string_view key_name(DataType type);
// The C type names of datatype.hpp GetDataType: float, half, bfloat16, int8_t, int, double.
std::string_view c_type_name(DataType type);
// "FP32", "fp32", "float", "FP16", "half", "BF16", "bfloat16", "INT8": throws InputError otherwise.
DataType parse_data_type(std::string_view name);

// A 4-D (NCHW) or 5-D (NCDHW) packed tensor.
struct TensorShape {
    std::vector<long> dims;  // N, C, [D,] H, W
    long n() const { return dims[0]; }
    long c() const { return dims[1]; }
    std::vector<long> spatial() const { return {dims.begin() + 2, dims.end()}; }
    long elements() const;
    std::vector<long> packed_strides() const;
    // Packed strides in a layout: NCHW/NCDHW as packed_strides(), NHWC/NDHWC channels last.
    std::vector<long> packed_strides(std::string_view layout) const;
};

// Non-convolution primitives, keyed by the network-config string MIOpen forms
// for them (its invoker-cache key), so that configs deduplicate exactly where
// MIOpen's would.
struct BatchNormProblem {
    enum class Direction { ForwardTraining, ForwardInference, Backward } direction = Direction::ForwardTraining;
    enum class Mode { PerActivation = 0, Spatial = 1 } mode = Mode::Spatial;
    TensorShape x;
    DataType data_type = DataType::Float;
    DataType param_type = DataType::Float;  // scale/bias/mean/variance (float for FP16 in PyTorch)
    std::string layout = "NCHW";
    bool save_results = true, running_results = true, use_saved = true;
    std::string network_config() const;  // src/batchnorm/problem_description.cpp:39-343
    // MIOpen's batch-norm API folds a 5-D tensor to N x C x (D*H) x W, NCDHW to NCHW and
    // NDHWC to NHWC, before any problem is formed (src/batch_norm_api.cpp:252-256,
    // src/batch_norm.cpp:67-90, MIOpen 3.3.0): so does kdbgen, once x and layout are set.
    void fold_depth();
};

struct PoolingProblem {
    enum class Direction { Forward, Backward } direction = Direction::Forward;
    enum class Mode { Max, Average, AverageInclusive } mode = Mode::Max;
    TensorShape x, y;
    std::vector<long> window, strides, pads;
    DataType data_type = DataType::Float;
    int index_type = 0;            // miopenIndexUint8
    int workspace_index_mode = 0;  // miopenPoolingWorkspaceIndexMask
    bool save_index = true;        // forward in training
    std::string layout = "NCHW";   // of x and y: NCHW, NHWC, NCDHW or NDHWC (their strides are in the key)
    std::string network_config() const;  // src/pooling/problem_description.cpp:52-88
};

struct ActivationProblem {
    enum class Direction { Forward, Backward } direction = Direction::Forward;
    // miopenActivationMode_t: PASTHRU 0, LOGISTIC 1, TANH 2, RELU 3, SOFTRELU 4, ABS 5,
    // POWER 6, CLIPPEDRELU 7, LEAKYRELU 8, ELU 9.
    int mode = 3;
    TensorShape x;
    DataType data_type = DataType::Float;
    // miopenSetActivationDescriptor's activAlpha/Beta/Gamma: kernel arguments, not
    // in the network config, so two problems that differ only here are one.
    double alpha = 1, beta = 1, gamma = 1;
    std::string network_config() const;  // src/activ/problem_description.cpp:36-79
};

struct SoftmaxProblem {
    enum class Direction { Forward, Backward } direction = Direction::Forward;
    int algorithm = 1;  // miopenSoftmaxAlgorithm_t: FAST 0, ACCURATE 1, LOG 2
    int mode = 1;       // miopenSoftmaxMode_t: INSTANCE 0, CHANNEL 1
    TensorShape x;
    DataType data_type = DataType::Float;
    float alpha = 1, beta = 0;
    std::string network_config() const;  // src/softmax/problem_description.cpp:38-78
};

// LRN and tensor ops have no ProblemDescription in MIOpen 3.3 (built in
// src/lrn.cpp and src/tensor.cpp directly), so their keys are kdbgen's.
struct LrnProblem {
    enum class Direction { Forward, Backward } direction = Direction::Forward;
    int mode = 1;  // miopenLRNMode_t: WITHIN_CHANNEL 0, CROSS_CHANNEL 1
    long size = 5;
    double alpha = 1e-4, beta = 0.75, k = 1;
    // miopenLRNForward's do_backward: the forward keeps its scale for the backward (training).
    bool save_scale = false;
    TensorShape x;
    DataType data_type = DataType::Float;
    std::string key() const;
};

struct TensorOpProblem {
    // miopenOpTensor (C = op(A, B)), or miopenSetTensor / miopenScaleTensor on A.
    enum class Routine { OpTensor, SetTensor, ScaleTensor } routine = Routine::OpTensor;
    int op = 0;  // miopenTensorOp_t: ADD 0, MUL 1, MIN 2, MAX 3
    TensorShape a, b;
    DataType data_type = DataType::Float;
    std::string key() const;
};

// A MIOpenDriver command kdbgen has no problem of its own for (RNN, CTC loss,
// dropout, layer norm and the other newer operations: issue #50): the line as
// given, the flags checked against the command's own. The native planner
// names it as not planned; the MIOpen engine replays it through the installed
// MIOpenDriver, which runs it as a user does.
struct DriverCommandProblem {
    std::string command;                 // argv[1]: "rnn", "ctc", "layernormfp16", ...
    std::vector<std::string> arguments;  // the flags and their values, in order
    std::string key() const;             // "rnn -n 4 -W 8 ...": the command line
};

// MIOpenDriver's flags for the commands kept as DriverCommandProblem, in the
// order each driver defines them (src/enumerate/driver_flags.cpp has the table
// and where it comes from): command (argv[1]) -> its flags.
struct DriverFlag {
    std::string name;    // the long name: --name
    std::string shorts;  // its short letter (two where the versions differ): -x
};
const std::map<std::string, std::vector<DriverFlag>, std::less<>>& driver_flag_table();

using Problem = std::variant<ConvProblem, BatchNormProblem, PoolingProblem, ActivationProblem, SoftmaxProblem,
                             LrnProblem, TensorOpProblem, DriverCommandProblem>;
std::string_view problem_kind(const Problem& problem);  // "conv", "batchnorm", ...
std::string problem_key(const Problem& problem);

// Deduplicated configs, in first-seen order, each with every place it came from.
class ProblemSet {
public:
    struct Entry {
        Problem problem;
        std::string key;
        std::vector<std::string> origins;  // file:line or network/layer
    };
    void add(Problem problem, std::string origin);
    void reserve(std::size_t entries) { entries_.reserve(entries); }
    void merge(const ProblemSet& other);
    const std::vector<Entry>& entries() const { return entries_; }
    std::size_t count(std::string_view kind) const;
    // Frees what adding needs (the key index and the origins seen, a third of the set's
    // memory): the built-in corpus, 2 * 10^5 problems, is added to no more once gathered.
    // An add() after it makes them again.
    void finish_adding();
    // Problems a source chose not to generate, by reason (the network zoo's:
    // what no framework sends MIOpen): counted, so a report can say so.
    void leave_out(const std::string& why, std::size_t count = 1) { left_out_[why] += count; }
    const std::map<std::string, std::size_t>& left_out() const { return left_out_; }

private:
    void make_index();
    std::map<std::string, std::size_t> left_out_;
    bool indexed_ = true;
    std::vector<Entry> entries_;
    std::map<std::string, std::size_t> index_;  // kind + key -> entry
    // (entry, origin) pairs seen: a repeated line is found in constant time,
    // not by a scan of the entry's origins (100k duplicate lines: 20 s).
    std::unordered_set<std::string> origin_seen_;
};

// MIOpenDriver command lines as MIOpen prints them with
// MIOPEN_ENABLE_LOGGING_CMD=1 (src/driver_arguments.cpp), found anywhere in
// a log that also holds other text. An unknown flag or bad value is an
// InputError with file:line.
ProblemSet read_driver_log(const fs::path& path);
ProblemSet parse_driver_log(std::string_view text, const std::string& origin);
// Whom a line comes from decides how bnorm's -s and -r read: MIOpen's command
// logger (lines with its "MIOpen(HIP): Command [...]" prefix) writes them the
// other way round from how MIOpenDriver reads them (src/enumerate/driver_log.cpp).
enum class DriverLineSource { HandWritten, Logged };
// One command line, without the program name: "conv -n 1 -c 3 ...". Every
// problem is checked (checks::check_problem).
std::vector<Problem> parse_driver_command(std::string_view command,
                                          DriverLineSource source = DriverLineSource::HandWritten);

// Network descriptions (docs/networks.md): layers with shapes propagated from
// the input, expanded over batch sizes, data types, layouts and modes.
struct NetworkExpansion {
    std::vector<long> batch_sizes;        // empty: the file's own
    std::vector<std::string> data_types;  // empty: the file's own
    std::vector<std::string> layouts;
    std::vector<std::string> modes;       // "inference", "training"
};
ProblemSet read_network(const fs::path& path, const NetworkExpansion& overrides = {});

// ONNX models (Conv, ConvTranspose, BatchNormalization, pooling, activations,
// Softmax, LRN) with shapes from ONNX shape inference.
struct OnnxOptions {
    long batch_size = 0;  // 0: the model's own (dynamic batch: 1)
    std::string data_type = "FP32";
    std::vector<std::string> modes{"inference"};
};
ProblemSet read_onnx_model(const fs::path& path, const OnnxOptions& options = {});

// Everything a user can point kdbgen at, gathered into one deduplicated set.
struct ProblemSources {
    std::vector<fs::path> networks, driver_logs, find_dbs, onnx_models;
    NetworkExpansion expansion;  // also sets the ONNX batch, type and modes where given
    bool empty() const { return networks.empty() && driver_logs.empty() && find_dbs.empty() && onnx_models.empty(); }
};

// Names that repeat across 10^5 find-db lines (solvers, algorithms) are kept
// once per process; the view stays valid until the process ends.
std::string_view interned(std::string_view name);

struct FindDbSolver {
    std::string_view solver;     // e.g. ConvBinWinogradRxSf2x3 (interned)
    std::string_view algorithm;  // e.g. miopenConvolutionFwdAlgoWinograd (interned)
    double time = 0;
    long long workspace = 0;
};

struct FindDbEntry {
    std::string key;                    // the problem key exactly as in the file
    ConvProblem problem;
    std::vector<FindDbSolver> solvers;  // best first, as MIOpen wrote them
    std::size_t line = 0;
};

// Lines of a find-db whose key MIOpen can never look up, skipped rather than
// refused (find-dbs kdbgen picks from the MIOpen tree; see read_find_db).
struct UnreadableFindDbLines {
    std::size_t count = 0;
    std::size_t first_line = 0;  // 1-based line of the first one
    std::string first_reason;    // why its key is not one MIOpen forms
};

// Reads a find-db (`*.HIP.fdb.txt` or `.bz2`), both line forms:
//   algorithm:solver,time,workspace,algorithm,<unused>   (older)
//   solver:time,workspace,algorithm                      (newer)
// A malformed line is an InputError with file:line and the value. With
// `skip_unreadable_keys`, a line whose key is not one MIOpen's
// ProblemDescription::Serialize ever forms (so no lookup can reach it, e.g.
// the 3-D keys with two padding values MIOpen 3.3.0 ships in gfx906_64) is
// skipped and counted there instead; a malformed solver record stays an error.
std::vector<FindDbEntry> read_find_db(const fs::path& path, UnreadableFindDbLines* skip_unreadable_keys = nullptr);
// The same, each entry handed to `take` as it is parsed (an architecture's find-db is 2 * 10^5
// lines: a reader that keeps less than whole entries never holds them all), keeping the
// unpacked text of a .bz2 in decoded_dir (named by the packed file's SHA-256) for the next
// run; an empty decoded_dir keeps nothing.
void read_find_db_entries(const fs::path& path, const fs::path& decoded_dir, UnreadableFindDbLines* skip_unreadable_keys,
                          const std::function<void(FindDbEntry&&)>& take);
// The text of a find-db, unpacked (and kept in decoded_dir as above); accept
// sees it first and may throw, so a refused file leaves no cache entry.
std::string read_find_db_text(const fs::path& path, const fs::path& decoded_dir,
                              const std::function<void(std::string_view)>& accept);
std::vector<FindDbEntry> parse_find_db(std::string_view text, const std::string& origin,
                                       UnreadableFindDbLines* skip_unreadable_keys = nullptr);
// parse_find_db one entry at a time; returns how many were handed over.
std::size_t for_each_find_db_entry(std::string_view text, const std::string& origin,
                                   UnreadableFindDbLines* skip_unreadable_keys,
                                   const std::function<void(FindDbEntry&&)>& take);
ProblemSet problems_of(const std::vector<FindDbEntry>& entries, const std::string& origin);

ProblemSet gather_problems(const ProblemSources& sources);

}  // namespace kdbgen

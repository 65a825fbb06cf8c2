// Neural networks MIOpen evaluates to pick default tuning parameters,
// evaluated by kdbgen's own code: models in frugally-deep's JSON format
// (Keras layers with base64 float32 weights and stored test vectors), and
// MIOpen's kernel-tuning net (KTN) built from two of them, an encoder and a
// decoder, plus a metadata file. Knows nothing about solvers: a solver hands
// in the features and a validator for each decoded value.
//
// MIOpen 3.3.0, src/conv/heuristics/ai_heuristics.cpp:
//   :581-590  Metadata: predict_type, num_tuning_params, decodings.tunings
//   :592-660  Model: Encode :611-620 (features as dim x dim, or dim x 1);
//             Decode :633-641 (prev token, then the 4 context tensors)
//   :673-687  GetModel: one model per solver, kept for the process
//   :701-778  ModelSetParams: the decoding loop
#pragma once

#include "kdbgen/util.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kdbgen::nn {

struct Tensor {
    std::vector<std::size_t> shape;  // as the model JSON writes it, without the batch axis
    std::vector<float> values;       // row-major
};

// A Keras functional model as frugally-deep's convert_model.py writes it.
// Layers evaluated: InputLayer, Dense (linear), Embedding, LSTM (tanh and
// sigmoid, with or without initial states); any other is an InputError.
class FdeepModel {
public:
    struct TestVector {
        std::vector<Tensor> inputs, outputs;
    };

    // Parses JSON text; origin names the file in errors. Throws InputError.
    static FdeepModel parse(std::string_view json_text, const std::string& origin);
    // The model of a file, parsed once per process (thread-safe).
    static std::shared_ptr<const FdeepModel> load(const fs::path& path);

    // The model's outputs in the order of its output_layers.
    std::vector<Tensor> predict(const std::vector<Tensor>& inputs) const;
    // The input/output pairs frugally-deep stores under "tests".
    const std::vector<TestVector>& tests() const { return tests_; }
    const std::string& origin() const { return origin_; }

    struct Layer;
    FdeepModel();
    ~FdeepModel();
    FdeepModel(FdeepModel&&) noexcept;
    FdeepModel& operator=(FdeepModel&&) noexcept;

private:
    std::string origin_;
    std::vector<Layer> layers_;
    std::vector<std::size_t> input_layers_;                       // indices into layers_
    std::vector<std::pair<std::size_t, std::size_t>> outputs_;   // (layer, output tensor)
    std::vector<TestVector> tests_;
};

// MIOpen's kernel-tuning net for one solver on one architecture: the files
// <arch>_<solver>_{encoder,decoder,metadata}.ktn.model of src/kernels.
class KernelTuningNet {
public:
    // The net of those files, loaded once per process; nullptr when the
    // encoder file is absent. Throws InputError for malformed files.
    static std::shared_ptr<const KernelTuningNet> load(const fs::path& kernels_dir, const std::string& arch,
                                                       const std::string& solver);

    // As ModelSetParams (ai_heuristics.cpp:701-778, MIOpen 3.3.0): encode the
    // features, then decode one parameter a step, starting from token 0. At
    // each step the tokens are tried best score first (ties: the higher index,
    // as std::priority_queue orders pairs); validator(i, value) applies value
    // to parameter i and says whether the config is still valid; the first
    // valid one is taken and fed back. A token whose value is "-1" ends the
    // decoding: false (the caller falls back to its non-AI heuristic).
    // direction is "fwd", "bwd" or "wrw".
    bool set_params(std::string_view direction, const std::vector<float>& features, bool transform_features,
                    const std::function<bool(std::size_t, const std::string&)>& validator) const;

    const FdeepModel& encoder() const { return *encoder_; }
    const FdeepModel& decoder() const { return *decoder_; }

private:
    std::string metadata_origin_;
    std::size_t predict_type_ = 0;
    std::vector<std::pair<std::string, std::size_t>> num_tuning_params_;
    std::vector<std::pair<std::size_t, std::string>> decodings_;  // token -> value
    std::shared_ptr<const FdeepModel> encoder_, decoder_;

    std::size_t tuning_params_for(const std::string& key) const;
    const std::string& decoding_of(std::size_t token) const;
};

}  // namespace kdbgen::nn

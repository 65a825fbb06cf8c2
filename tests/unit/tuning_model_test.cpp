// kdbgen's evaluation of frugally-deep JSON models and of MIOpen's
// kernel-tuning net (include/kdbgen/tuning_model.hpp). The real models are
// checked against the test vectors frugally-deep stores in them ("tests":
// inputs and the outputs Keras computed); small models written here check the
// layer semantics by hand; the decoding loop is checked against
// ModelSetParams (src/conv/heuristics/ai_heuristics.cpp:701-778, MIOpen 3.3.0).
#include "kdbgen/error.hpp"
#include "kdbgen/tuning_model.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

using namespace kdbgen;
using namespace kdbgen::nn;

namespace {

fs::path miopen_kernels_dir() {
    const char* src = ::kdbgen::test::miopen_src();
    return src ? fs::path(src) / "src" / "kernels" : fs::path();
}

// frugally-deep's own load-time check compares with an epsilon of 1e-4 (verify=true, as
// MIOpen loads its models: ai_heuristics.cpp:598-599).
constexpr float kTolerance = 1e-4f;

float max_difference(const FdeepModel& model, std::size_t* compared) {
    float worst = 0.0f;
    for (const auto& test : model.tests()) {
        const auto got = model.predict(test.inputs);
        EXPECT_EQ(got.size(), test.outputs.size()) << model.origin();
        for (std::size_t i = 0; i < std::min(got.size(), test.outputs.size()); ++i) {
            EXPECT_EQ(got[i].values.size(), test.outputs[i].values.size()) << model.origin() << " output " << i;
            for (std::size_t k = 0; k < std::min(got[i].values.size(), test.outputs[i].values.size()); ++k) {
                worst = std::max(worst, std::fabs(got[i].values[k] - test.outputs[i].values[k]));
                ++*compared;
            }
        }
    }
    return worst;
}

// Dense 2 -> 1 (weights 0.5, -2, bias 1), then nothing else; one stored test: [4, 1] -> [1].
const char* kDenseModel = R"({
  "architecture": {"class_name": "Functional", "config": {"name": "m", "layers": [
    {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 2], "name": "in"}, "name": "in",
     "inbound_nodes": []},
    {"class_name": "Dense", "config": {"name": "d", "units": 1, "activation": "linear", "use_bias": true},
     "name": "d", "inbound_nodes": [[["in", 0, 0, {}]]]}],
    "input_layers": [["in", 0, 0]], "output_layers": [["d", 0, 0]]}},
  "trainable_params": {"d": {"weights": ["AAAAPwAAAMA="], "bias": ["AACAPw=="]}},
  "tests": [{"inputs": [{"shape": [2], "values": ["AACAQAAAgD8="]}],
             "outputs": [{"shape": [1], "values": ["AACAPw=="]}]}]
})";

}  // namespace

TEST(FdeepModelWithTree, StoredTestVectorsOfEveryKtnModelInTheTree) {
    const auto dir = miopen_kernels_dir();
    if (dir.empty()) GTEST_SKIP() << "set KDBGEN_MIOPEN_SRC to a MIOpen source tree";
    std::size_t models = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (!name.ends_with(".ktn.model") || name.find("_metadata") != std::string::npos) continue;
        const auto model = FdeepModel::load(entry.path());
        ASSERT_FALSE(model->tests().empty()) << name;
        std::size_t compared = 0;
        EXPECT_LE(max_difference(*model, &compared), kTolerance) << name;
        EXPECT_GT(compared, 0u) << name;
        ++models;
    }
    // MIOpen 3.3.0 ships 12: gfx908 ConvAsm1x1U, and CK grouped-conv nets for gfx90a / gfx942.
    EXPECT_GE(models, 2u);
    const auto encoder = FdeepModel::load(dir / "gfx908_ConvAsm1x1U_encoder.ktn.model");
    EXPECT_EQ(encoder.get(), FdeepModel::load(dir / "gfx908_ConvAsm1x1U_encoder.ktn.model").get())
        << "parsed once per process";
}

TEST(FdeepModelWithTree, StoredTestVectorFailsWhenAWeightChanges) {
    // The comparison can fail: perturb the decoder's output bias and the stored vector no longer matches.
    const auto dir = miopen_kernels_dir();
    if (dir.empty()) GTEST_SKIP() << "set KDBGEN_MIOPEN_SRC to a MIOpen source tree";
    std::string text = read_text_file(dir / "gfx908_ConvAsm1x1U_decoder.ktn.model");
    const std::string bias_key = "\"bias\":[\"";
    const auto at = text.rfind(bias_key);  // dense_1's bias, the last layer
    ASSERT_NE(at, std::string::npos);
    // The fifth base64 digit holds the top bits of the first float's last byte (sign and exponent).
    char& digit = text[at + bias_key.size() + 4];
    digit = digit == 'Q' ? 'R' : 'Q';
    const auto model = FdeepModel::parse(text, "perturbed decoder");
    std::size_t compared = 0;
    EXPECT_GT(max_difference(model, &compared), kTolerance);
}

TEST(FdeepModel, DenseEmbeddingAndLstmByHand) {
    test::TempDir dir;
    const auto dense = FdeepModel::parse(kDenseModel, "dense.json");
    const auto y = dense.predict({Tensor{{2}, {4.0f, 1.0f}}});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_EQ(y[0].values, std::vector<float>{1.0f});  // 0.5 * 4 - 2 * 1 + 1
    std::size_t compared = 0;
    EXPECT_EQ(max_difference(dense, &compared), 0.0f);

    // Embedding 3 x 2, rows [0 1] [2 3] [4 5]: token 2 -> [4 5].
    const auto embedding = FdeepModel::parse(R"({
      "architecture": {"config": {"layers": [
        {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 1]}, "name": "t", "inbound_nodes": []},
        {"class_name": "Embedding", "config": {"input_dim": 3, "output_dim": 2}, "name": "e",
         "inbound_nodes": [[["t", 0, 0, {}]]]}],
        "input_layers": [["t", 0, 0]], "output_layers": [["e", 0, 0]]}},
      "trainable_params": {"e": {"weights": ["AAAAAAAAgD8AAABAAABAQAAAgEAAAKBA"]}}})",
                                             "embedding.json");
    EXPECT_EQ(embedding.predict({Tensor{{1}, {2.0f}}})[0].values, (std::vector<float>{4.0f, 5.0f}));
    EXPECT_THROW(embedding.predict({Tensor{{1}, {3.0f}}}), InputError);

    // LSTM, 1 unit, one step of x = 1; only the third gate (Keras order i, f, c, o: the cell
    // candidate) sees x: i = f = o = sigmoid(0) = 0.5, c = 0.5 * tanh(1) = 0.380797,
    // h = 0.5 * tanh(c) = 0.181700. Outputs [sequence-or-h, h, c].
    const auto lstm = FdeepModel::parse(R"({
      "architecture": {"config": {"layers": [
        {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 1, 1]}, "name": "x", "inbound_nodes": []},
        {"class_name": "LSTM", "config": {"units": 1, "activation": "tanh", "recurrent_activation": "sigmoid",
         "use_bias": true, "return_sequences": false, "go_backwards": false, "stateful": false}, "name": "l",
         "inbound_nodes": [[["x", 0, 0, {}]]]}],
        "input_layers": [["x", 0, 0]], "output_layers": [["l", 0, 0], ["l", 0, 2]]}},
      "trainable_params": {"l": {"weights": ["AAAAAAAAAAAAAIA/AAAAAA=="], "recurrent_weights": ["AAAAAAAAAAAAAAAAAAAAAA=="],
                                 "bias": ["AAAAAAAAAAAAAAAAAAAAAA=="]}}})",
                                        "lstm.json");
    const auto out = lstm.predict({Tensor{{1, 1}, {1.0f}}});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_NEAR(out[0].values.at(0), 0.181700f, 1e-6f);
    EXPECT_NEAR(out[1].values.at(0), 0.380797f, 1e-6f);
}

TEST(FdeepModel, MalformedModelsNameFileLayerAndValue) {
    std::string unknown = kDenseModel;
    unknown.replace(unknown.find("\"Dense\""), 7, "\"Conv2D\"");
    EXPECT_EQ(test::input_error_of([&] { FdeepModel::parse(unknown, "net.json"); }),
              "net.json: layer 'd': layer class 'Conv2D' is not modelled");
    std::string relu = kDenseModel;
    relu.replace(relu.find("\"linear\""), 8, "\"relu\"");
    EXPECT_EQ(test::input_error_of([&] { FdeepModel::parse(relu, "net.json"); }),
              "net.json: layer 'd': activation 'relu' is not modelled (only 'linear')");
    std::string short_weights = kDenseModel;
    short_weights.replace(short_weights.find("AAAAPwAAAMA="), 12, "AAAAPw==");
    EXPECT_EQ(test::input_error_of([&] { FdeepModel::parse(short_weights, "net.json"); }),
              "net.json: layer 'd': 1 weights for 2 x 1");
    std::string bad_base64 = kDenseModel;
    bad_base64.replace(bad_base64.find("AAAAPwAAAMA="), 1, "*");
    EXPECT_EQ(test::input_error_of([&] { FdeepModel::parse(bad_base64, "net.json"); }),
              "net.json: layer 'd' weights: character '*' is not base64");
    EXPECT_NE(test::input_error_of([&] { FdeepModel::parse("{", "net.json"); }).find("net.json: not JSON"),
              std::string::npos);
}

TEST(KernelTuningNetWithTree, DecodingFollowsModelSetParams) {
    const auto dir = miopen_kernels_dir();
    if (dir.empty()) GTEST_SKIP() << "set KDBGEN_MIOPEN_SRC to a MIOpen source tree";
    const auto net = KernelTuningNet::load(dir, "gfx908", "ConvAsm1x1U");
    ASSERT_NE(net, nullptr);
    EXPECT_EQ(net.get(), KernelTuningNet::load(dir, "gfx908", "ConvAsm1x1U").get());
    EXPECT_EQ(KernelTuningNet::load(dir, "gfx908", "NoSuchSolver"), nullptr);
    // TransformFeatures for 64 -> 256 channels, 56x56, batch 32, FP32 forward (conv_asm_1x1u.cpp:393-409).
    std::vector<float> features(64, 0.0f);
    features[0] = 2, features[1 * 8 + 1] = 1, features[3 * 8 + 3] = 64, features[4 * 8 + 4] = 256;
    features[5 * 8 + 5] = 56, features[6 * 8 + 6] = 56, features[7 * 8 + 7] = 32;
    // Accept everything: one value per parameter, "fwd" has 8 (metadata num_tuning_params), then true.
    std::vector<std::size_t> asked;
    std::vector<std::string> values;
    EXPECT_TRUE(net->set_params("fwd", features, true, [&](std::size_t i, const std::string& v) {
        asked.push_back(i), values.push_back(v);
        return true;
    }));
    EXPECT_EQ(asked, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    // Reject everything: the tokens are tried best first until the "-1" token ends the decoding (:754-760).
    std::size_t tried = 0;
    EXPECT_FALSE(net->set_params("fwd", features, true, [&](std::size_t i, const std::string& v) {
        EXPECT_EQ(i, 0u);
        EXPECT_NE(v, "-1");
        ++tried;
        return false;
    }));
    EXPECT_GT(tried, 0u);
    EXPECT_LT(tried, 38u);  // 38 tokens, two of them "-1"
    // Rejecting the first pick makes the decoder try another value for the same parameter.
    std::string first;
    std::vector<std::string> at_zero;
    net->set_params("fwd", features, true, [&](std::size_t i, const std::string& v) {
        if (i == 0) at_zero.push_back(v);
        return i != 0 || at_zero.size() > 1;
    });
    ASSERT_EQ(at_zero.size(), 2u);
    EXPECT_EQ(at_zero[0], values[0]);
    EXPECT_EQ(test::input_error_of([&] { net->set_params("wrw", features, true, [](auto, auto&) { return true; }); }),
              (dir / "gfx908_ConvAsm1x1U_metadata.ktn.model").string() + ": num_tuning_params: no entry 'wrw'");
}

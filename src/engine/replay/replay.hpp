// What the replay's parts share (src/engine/replay/): the library's entry
// points, MIOpen calls checked, a problem line's fields, tensors and buffers.
// kdbgen-miopen-replay depends on nothing but the C++ runtime and libdl: it
// runs inside whatever system the MIOpen library belongs to.
#pragma once

#include "miopen_api.hpp"

#include <sys/mman.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kdbgen::miopen_api {
// The entry points, resolved from the library with dlsym.
struct Library {
#define KDBGEN_DECLARE(name, type) std::type_identity_t<type> name = nullptr;
    KDBGEN_MIOPEN_FUNCTIONS(KDBGEN_DECLARE)
#undef KDBGEN_DECLARE
};
}  // namespace kdbgen::miopen_api

namespace api = kdbgen::miopen_api;


namespace api = kdbgen::miopen_api;

namespace kdbgen::replay {

using api::Library;

// A failed MIOpen call: which one and MIOpen's own words for its status.
struct CallFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline const Library* lib = nullptr;  // set by main once the library is loaded

inline void check(api::Status status, const char* call) {
    if (status == 0) return;
    const char* text = lib->miopenGetErrorString ? lib->miopenGetErrorString(status) : nullptr;
    throw CallFailed(std::string(call) + ": " + (text ? text : "status " + std::to_string(status)));
}

using Fields = std::map<std::string, std::string>;

inline const std::string& field(const Fields& fields, const std::string& name) {
    const auto found = fields.find(name);
    if (found == fields.end()) throw std::runtime_error("missing field " + name);
    return found->second;
}

inline std::vector<long> numbers(const std::string& text) {
    std::vector<long> values;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) values.push_back(std::stol(item));
    return values;
}
inline std::vector<int> ints(const std::string& text) {
    const auto values = numbers(text);
    return {values.begin(), values.end()};
}
inline long integer(const Fields& fields, const std::string& name) { return std::stol(field(fields, name)); }
inline std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> values;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) values.push_back(item);
    return values;
}

inline std::size_t element_size(int type) {
    switch (type) {
    case api::Half: case api::BFloat16: return 2;
    case api::Int8: return 1;
    case api::Double: return 8;
    default: return 4;
    }
}

// Buffers are reserved, never touched: no kernel runs under the stub.
struct Buffer {
    void* data = nullptr;
    std::size_t size = 0;
    explicit Buffer(std::size_t bytes) : size(bytes == 0 ? 1 : bytes) {
        data = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (data == MAP_FAILED) throw std::runtime_error("cannot reserve " + std::to_string(size) + " bytes");
    }
    ~Buffer() { munmap(data, size); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
};

struct Tensor {
    api::TensorDescriptor desc = nullptr;
    std::size_t bytes = 0;
    Tensor(const std::vector<long>& dims, int type, const std::string& layout) {
        check(lib->miopenCreateTensorDescriptor(&desc), "miopenCreateTensorDescriptor");
        // Strides of a packed tensor in the given layout; dims are always N, C, spatial...
        const std::size_t rank = dims.size();
        std::vector<int> order(rank);  // innermost last
        if (layout == "NHWC" || layout == "NDHWC") {
            order[0] = 0;
            for (std::size_t i = 2; i < rank; ++i) order[i - 1] = static_cast<int>(i);
            order[rank - 1] = 1;
        } else {
            for (std::size_t i = 0; i < rank; ++i) order[i] = static_cast<int>(i);
        }
        std::vector<int> strides(rank), sizes(dims.begin(), dims.end());
        long stride = 1;
        for (std::size_t i = rank; i-- > 0;) {
            strides[order[i]] = static_cast<int>(stride);
            stride *= dims[order[i]];
        }
        bytes = static_cast<std::size_t>(stride) * element_size(type);
        check(lib->miopenSetTensorDescriptor(desc, type, static_cast<int>(rank), sizes.data(), strides.data()),
              "miopenSetTensorDescriptor");
    }
    ~Tensor() { lib->miopenDestroyTensorDescriptor(desc); }
    Tensor(const Tensor&) = delete;
    Tensor& operator=(const Tensor&) = delete;
};

// A MIOpen descriptor, destroyed when it goes out of scope.
template <typename Descriptor>
struct Owned {
    Descriptor handle = nullptr;
    api::Status (*destroy)(Descriptor) = nullptr;
    ~Owned() {
        if (handle) destroy(handle);
    }
};

template <typename Descriptor>
Owned<Descriptor> create(api::Status (*create_one)(Descriptor*), api::Status (*destroy)(Descriptor), const char* name) {
    Owned<Descriptor> owned{nullptr, destroy};
    check(create_one(&owned.handle), name);
    return owned;
}

// alpha/beta as MIOpen reads them: float for every type but double.
const float kOne = 1.0f, kZero = 0.0f;

struct Notes {
    std::string id;
    void operator()(const CallFailed& failure) const {
        std::printf("note %s %s\n", id.c_str(), failure.what());
        std::fflush(stdout);
    }
};

enum class Mode { Find, Immediate };

// One problem replayed (primitives.cpp): its calls made on the handle, a
// failed call thrown as CallFailed, calls that fail on the way told to note.
void replay(api::Handle handle, const std::string& kind, const Fields& fields, const Notes& note, Mode mode);
// A convolution, one way (conv.cpp).
void replay_conv(api::Handle handle, const Fields& f, const Notes& note, Mode mode);
// An RNN, a CTC loss or a dropout (rnn.cpp); false for any other kind.
bool replay_recurrent(api::Handle handle, const std::string& kind, const Fields& fields);

}  // namespace kdbgen::replay

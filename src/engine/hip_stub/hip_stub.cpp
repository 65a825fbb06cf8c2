// kdbgen-hip-stub: a stand-in for the HIP runtime (libamdhip64) that lets an
// installed libMIOpen run on a machine with no GPU. It describes one device,
// the card kdbgen is building for, and otherwise does nothing: memory comes
// from the host, launches and copies are no-ops, events report a fixed time.
// MIOpen then forms its kernel keys and compiles its kernels exactly as on
// that card, which is all kdbgen needs from it.
//
// The device comes from the environment kdbgen sets for each replay:
//   KDBGEN_STUB_ARCH   target ID as ROCm reports it (gcnArchName), e.g. gfx90a:sramecc+:xnack-
//   KDBGEN_STUB_CUS    compute units as MIOpen counts them (hipDeviceAttributeMultiprocessorCount)
//   KDBGEN_STUB_TRACE  optional file: every HIP call and unknown device attribute, one per line
//
// Where MIOpen reads the CU count is counted (kdbgen_stub_deciding_cu_reads):
// a read for a db file's name (the card's kdb, find-db and perf-db, which
// kdbgen compares between cards itself) is not; any other read may decide
// what MIOpen builds (a solver's applicability, a perf config, a define), and
// a problem that made one may differ on a card with another count. The reader
// is told by the call stack: the first frame that names an exported libMIOpen
// function whose extent holds the address (a hidden function names none and is
// passed over). A read whose reader cannot be told counts as deciding.
//
// Only the C ABI matters here: hipError_t is an int, handles are opaque
// pointers, and hipDeviceProp_tR0600 is filled at its byte offsets (the same
// in HIP 6.4 and 7.2, read off hip_runtime_api.h of both with offsetof).
// The exported symbol versions come from hip6.map / hip7.map.
#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace {

using HipError = int;
constexpr HipError kSuccess = 0;
constexpr HipError kInvalidValue = 1;
constexpr HipError kInvalidDevice = 101;

struct Device {
    std::string arch = "gfx900";
    std::string processor = "gfx900";  // arch up to the first ':'
    int compute_units = 56;
    int wave_size = 64;
    int major = 9, minor = 0;
};

int env_int(const char* name, int fallback) {
    const char* text = std::getenv(name);
    if (!text || !*text) return fallback;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    return (*end == '\0' && value > 0 && value < 1 << 20) ? static_cast<int>(value) : fallback;
}

const Device& device() {
    static const Device dev = [] {
        Device d;
        if (const char* arch = std::getenv("KDBGEN_STUB_ARCH"); arch && *arch) d.arch = arch;
        d.processor = d.arch.substr(0, d.arch.find(':'));
        d.compute_units = env_int("KDBGEN_STUB_CUS", d.compute_units);
        // gfxMmS / gfxMMmS: ROCm's major/minor are the processor's version digits.
        const std::string digits = d.processor.substr(3);
        if (digits.size() >= 3) {
            d.major = std::atoi(digits.substr(0, digits.size() - 2).c_str());
            d.minor = std::stoi(digits.substr(digits.size() - 2, 1), nullptr, 16);
        }
        // RDNA (gfx10+) runs wave32 by default and ROCm reports warpSize 32 there.
        d.wave_size = d.major >= 10 ? 32 : 64;
        return d;
    }();
    return dev;
}

void trace(const char* format, ...) {
    static FILE* out = [] {
        const char* path = std::getenv("KDBGEN_STUB_TRACE");
        return path && *path ? std::fopen(path, "a") : nullptr;
    }();
    if (!out) return;
    static std::mutex lock;
    std::lock_guard guard(lock);
    va_list args;
    va_start(args, format);
    std::vfprintf(out, format, args);
    va_end(args);
    std::fputc('\n', out);
    std::fflush(out);
}

// Allocations are anonymous mappings reserved without backing: MIOpen asks for
// workspaces of gigabytes and never touches them on this path.
std::mutex allocations_lock;
std::map<std::uintptr_t, std::size_t>& allocations() {
    static std::map<std::uintptr_t, std::size_t> map;
    return map;
}

HipError allocate(void** pointer, std::size_t size) {
    if (!pointer) return kInvalidValue;
    const std::size_t length = size == 0 ? 1 : size;
    void* memory = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) return 2;  // hipErrorOutOfMemory
    std::lock_guard guard(allocations_lock);
    allocations()[reinterpret_cast<std::uintptr_t>(memory)] = length;
    *pointer = memory;
    return kSuccess;
}

HipError release(void* pointer) {
    if (!pointer) return kSuccess;
    std::lock_guard guard(allocations_lock);
    const auto found = allocations().find(reinterpret_cast<std::uintptr_t>(pointer));
    if (found == allocations().end()) return kInvalidValue;
    munmap(pointer, found->second);
    allocations().erase(found);
    return kSuccess;
}

constexpr std::size_t kDeviceMemory = std::size_t{64} << 30;

// hipDeviceAttribute_t values (hip_runtime_api.h, HIP 6.4 and 7.2 agree).
int attribute(int which, bool& known) {
    const Device& d = device();
    known = true;
    switch (which) {
    case 5: return 2100000;                 // ClockRate (kHz)
    case 10: return 1;                      // CooperativeLaunch
    case 11: return 1;                      // CooperativeMultiDeviceLaunch
    case 16: return 0;                      // Integrated
    case 19: return d.major >= 10 ? 4 << 20 : 8 << 20;  // L2CacheSize
    case 23: return d.major;                // ComputeCapabilityMajor
    case 56: return 1024;                   // MaxThreadsPerBlock
    case 60: return 1000000;                // MemoryClockRate
    case 61: return d.minor;                // ComputeCapabilityMinor
    case 63: return d.compute_units;        // MultiprocessorCount
    case 74: return 65536;                  // MaxSharedMemoryPerBlock
    case 75: return 65536;                  // SharedMemPerBlockOptin
    case 76: return 65536;                  // SharedMemPerMultiprocessor
    case 87: return d.wave_size;            // WarpSize
    case 10002: return 65536;               // MaxSharedMemoryPerMultiprocessor
    case 10016: return 1;                   // FineGrainSupport
    case 10017: return 100000;              // WallClockRate (kHz)
    case 10018: return d.processor.rfind("gfx94", 0) == 0 ? 8 : 1;  // NumberOfXccs
    default: known = false; return 0;
    }
}

template <typename T>
void put(void* base, std::size_t offset, T value) {
    std::memcpy(static_cast<char*>(base) + offset, &value, sizeof value);
}

void put_string(void* base, std::size_t offset, const std::string& text, std::size_t capacity) {
    std::strncpy(static_cast<char*>(base) + offset, text.c_str(), capacity - 1);
}

// The exported function whose code holds `address`, demangled; empty for a
// hidden function (dladdr names the nearest exported symbol before it, whose
// extent then does not reach the address).
std::string function_named_at(void* address) {
    Dl_info info{};
    void* entry = nullptr;
    if (!dladdr1(address, &info, &entry, RTLD_DL_SYMENT) || !info.dli_sname || !info.dli_saddr || !entry) return {};
    const auto* symbol = static_cast<const ElfW(Sym)*>(entry);
    const auto offset = static_cast<std::size_t>(static_cast<char*>(address) - static_cast<char*>(info.dli_saddr));
    if (offset >= symbol->st_size) return {};
    int status = 0;
    char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    std::string name = demangled ? demangled : info.dli_sname;
    std::free(demangled);
    return name;
}

// MIOpen's readers of the CU count that only name files (MIOpen 3.4.0 and
// 3.5.1, as src/ of 3.3.0 has them): Handle::LoadProgram passes it to
// LoadBinary/SaveBinary for the kdb's name (hip/handlehip.cpp:564-598,
// binary_cache.cpp); FindDbRecord_t's paths pick the closest find-db
// (find_db.cpp:63-111), GetDb the closest perf-db (execution_context.hpp:139,
// 208), batchnorm's GetDb its perf-db. Readers of the device properties that
// take only the name or the wave size: TargetProperties::Init
// (target_properties.cpp:76-112), Handle::GetWavefrontWidth, hiprtc (the
// processor it compiles for).
bool names_files(std::string_view function) {
    for (const std::string_view reader : {"miopen::Handle::LoadProgram(", "miopen::LoadBinary(", "miopen::SaveBinary(",
                                          "miopen::FindDbRecord_t<", "miopen::GetDb(", "miopen::batchnorm::GetDb("})
        if (function.starts_with(reader)) return true;
    return false;
}
bool takes_name_only(std::string_view function) {
    for (const std::string_view reader : {"miopen::TargetProperties::Init(", "miopen::Handle::GetWavefrontWidth(",
                                          "miopen::Handle::GetDeviceName", "hiprtcCompileProgram"})
        if (function.starts_with(reader)) return true;
    return false;
}
// Frames between the reader and the stub: the reader is their caller.
bool passes_on(std::string_view function) {
    for (const std::string_view reader : {"miopen::Handle::GetMaxComputeUnits(", "miopen::Handle::GetDbBasename(",
                                          "hipGetDeviceProperties", "hipDeviceGetAttribute", "count_cu_read"})
        if (function.starts_with(reader)) return true;
    return false;
}

// dladdr scans a library's symbols; a read comes from a few call sites, again and again.
std::string function_at(void* address) {
    static std::mutex lock;
    static std::unordered_map<void*, std::string> known;
    std::lock_guard guard(lock);
    const auto found = known.find(address);
    if (found != known.end()) return found->second;
    return known.emplace(address, function_named_at(address)).first->second;
}

std::atomic<unsigned long> deciding_cu_reads{0};

enum class CuRead { Attribute, Properties };
void count_cu_read(CuRead how) {
    void* frames[12];
    const int depth = backtrace(frames, 12);
    std::string reader;
    for (int i = 1; i < depth && reader.empty(); ++i) {
        std::string function = function_at(frames[i]);
        if (!function.empty() && !passes_on(function)) reader = std::move(function);
    }
    const bool deciding =
        reader.empty() || !(how == CuRead::Attribute ? names_files(reader) : takes_name_only(reader));
    if (deciding) deciding_cu_reads.fetch_add(1);
    trace("cu-read %s by %s", deciding ? "deciding" : "naming", reader.empty() ? "?" : reader.substr(0, 100).c_str());
}

std::atomic<std::uintptr_t> next_handle{0x1000};
void* new_handle() { return reinterpret_cast<void*>(next_handle.fetch_add(0x10)); }

}  // namespace

#define KDBGEN_STUB_EXPORT extern "C" __attribute__((visibility("default")))

// What kdbgen-miopen-replay reports per problem (the library has loaded this stub).
KDBGEN_STUB_EXPORT unsigned long kdbgen_stub_deciding_cu_reads() { return deciding_cu_reads.load(); }

KDBGEN_STUB_EXPORT HipError hipInit(unsigned) { trace("hipInit"); return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipGetDevice(int* id) { if (id) *id = 0; return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipSetDevice(int id) { return id == 0 ? kSuccess : kInvalidDevice; }
KDBGEN_STUB_EXPORT HipError hipGetDeviceCount(int* count) { if (count) *count = 1; return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipDeviceSynchronize() { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipGetLastError() { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipPeekAtLastError() { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipRuntimeGetVersion(int* version) { if (version) *version = 60443000; return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipDriverGetVersion(int* version) { if (version) *version = 60443000; return kSuccess; }

KDBGEN_STUB_EXPORT HipError hipDeviceGetAttribute(int* value, int which, int id) {
    if (!value) return kInvalidValue;
    if (id != 0) return kInvalidDevice;
    bool known = false;
    *value = attribute(which, known);
    if (which == 63) count_cu_read(CuRead::Attribute);
    trace(known ? "hipDeviceGetAttribute %d = %d" : "hipDeviceGetAttribute %d unknown, answered %d", which, *value);
    return kSuccess;
}

// hipDeviceProp_tR0600: 1472 bytes; offsets read off HIP 6.4.3's and 7.2.4's headers.
KDBGEN_STUB_EXPORT HipError hipGetDevicePropertiesR0600(void* prop, int id) {
    if (!prop) return kInvalidValue;
    if (id != 0) return kInvalidDevice;
    const Device& d = device();
    count_cu_read(CuRead::Properties);  // multiProcessorCount is in there
    trace("hipGetDevicePropertiesR0600 %s %d", d.arch.c_str(), d.compute_units);
    std::memset(prop, 0, 1472);
    put_string(prop, 0, "AMD Radeon Graphics (kdbgen-hip-stub " + d.processor + ")", 256);  // name
    put<std::size_t>(prop, 288, kDeviceMemory);              // totalGlobalMem
    put<std::size_t>(prop, 296, 65536);                       // sharedMemPerBlock
    put<int>(prop, 304, 65536);                               // regsPerBlock
    put<int>(prop, 308, d.wave_size);                         // warpSize
    put<int>(prop, 320, 1024);                                // maxThreadsPerBlock
    for (int i = 0; i < 3; ++i) put<int>(prop, 324 + 4 * i, 1024);        // maxThreadsDim
    for (int i = 0; i < 3; ++i) put<int>(prop, 336 + 4 * i, 0x7fffffff);  // maxGridSize
    put<int>(prop, 348, 2100000);                             // clockRate
    put<std::size_t>(prop, 352, 65536);                       // totalConstMem
    put<int>(prop, 360, d.major);                             // major
    put<int>(prop, 364, d.minor);                             // minor
    put<int>(prop, 388, d.compute_units);                     // multiProcessorCount
    put<int>(prop, 400, 1);                                   // canMapHostMemory
    put<int>(prop, 576, 1);                                   // concurrentKernels
    put<int>(prop, 604, 1);                                   // unifiedAddressing
    put<int>(prop, 608, 1000000);                             // memoryClockRate
    put<int>(prop, 612, 4096);                                // memoryBusWidth
    put<int>(prop, 616, d.major >= 10 ? 4 << 20 : 8 << 20);   // l2CacheSize
    put<int>(prop, 624, 2048);                                // maxThreadsPerMultiProcessor
    put<std::size_t>(prop, 640, 65536);                       // sharedMemPerMultiprocessor
    put<int>(prop, 688, 1);                                   // cooperativeLaunch
    put<std::size_t>(prop, 696, 65536);                       // sharedMemPerBlockOptin
    put_string(prop, 1160, d.arch, 256);                      // gcnArchName
    put<std::size_t>(prop, 1416, 65536);                      // maxSharedMemoryPerMultiProcessor
    return kSuccess;
}

#if KDBGEN_HIP_MAJOR >= 7
// HIP 7's hiprtc (which MIOpen 3.5 compiles its HIP kernels with) dlopens
// "libamdhip64.so" and asks hipGetDevice and hipGetDeviceProperties for the
// device; unanswered (the real runtime finds no GPU) every compile fails with
// an empty log. In HIP 7 the unversioned name has the R0600 layout.
KDBGEN_STUB_EXPORT HipError hipGetDeviceProperties(void* prop, int id) { return hipGetDevicePropertiesR0600(prop, id); }
#endif

KDBGEN_STUB_EXPORT const char* hipGetErrorString(HipError error) {
    return error == kSuccess ? "hipSuccess" : "kdbgen-hip-stub error";
}
KDBGEN_STUB_EXPORT const char* hipGetErrorName(HipError error) { return hipGetErrorString(error); }

KDBGEN_STUB_EXPORT HipError hipMalloc(void** pointer, std::size_t size) { return allocate(pointer, size); }
KDBGEN_STUB_EXPORT HipError hipHostMalloc(void** pointer, std::size_t size, unsigned) { return allocate(pointer, size); }
KDBGEN_STUB_EXPORT HipError hipExtMallocWithFlags(void** pointer, std::size_t size, unsigned) { return allocate(pointer, size); }
KDBGEN_STUB_EXPORT HipError hipFree(void* pointer) { return release(pointer); }
KDBGEN_STUB_EXPORT HipError hipHostFree(void* pointer) { return release(pointer); }
KDBGEN_STUB_EXPORT HipError hipMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
    if (free_bytes) *free_bytes = kDeviceMemory;
    if (total_bytes) *total_bytes = kDeviceMemory;
    return kSuccess;
}
KDBGEN_STUB_EXPORT HipError hipDeviceTotalMem(std::size_t* bytes, int) { if (bytes) *bytes = kDeviceMemory; return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipMemPtrGetInfo(void* pointer, std::size_t* size) {
    if (!size) return kInvalidValue;
    std::lock_guard guard(allocations_lock);
    const auto found = allocations().find(reinterpret_cast<std::uintptr_t>(pointer));
    *size = found == allocations().end() ? 0 : found->second;
    return found == allocations().end() ? kInvalidValue : kSuccess;
}
// No kernel ever runs, so no buffer holds anything worth copying.
KDBGEN_STUB_EXPORT HipError hipMemcpy(void*, const void*, std::size_t, int) { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipMemcpyAsync(void*, const void*, std::size_t, int, void*) { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipMemcpyWithStream(void*, const void*, std::size_t, int, void*) { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipMemset(void*, int, std::size_t) { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipMemsetAsync(void*, int, std::size_t, void*) { return kSuccess; }

KDBGEN_STUB_EXPORT HipError hipStreamCreate(void** stream) { if (stream) *stream = new_handle(); return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipStreamCreateWithFlags(void** stream, unsigned) { return hipStreamCreate(stream); }
KDBGEN_STUB_EXPORT HipError hipStreamDestroy(void*) { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipStreamSynchronize(void*) { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipStreamWaitEvent(void*, void*, unsigned) { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipStreamQuery(void*) { return kSuccess; }

KDBGEN_STUB_EXPORT HipError hipEventCreate(void** event) { if (event) *event = new_handle(); return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipEventCreateWithFlags(void** event, unsigned) { return hipEventCreate(event); }
KDBGEN_STUB_EXPORT HipError hipEventDestroy(void*) { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipEventRecord(void*, void*) { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipEventSynchronize(void*) { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipEventQuery(void*) { return kSuccess; }
// Every kernel "takes" the same time, so no ranking MIOpen records means anything.
KDBGEN_STUB_EXPORT HipError hipEventElapsedTime(float* milliseconds, void*, void*) {
    if (milliseconds) *milliseconds = 1.0f;
    return kSuccess;
}

KDBGEN_STUB_EXPORT HipError hipModuleLoad(void** module, const char* path) {
    trace("hipModuleLoad %s", path ? path : "(null)");
    if (module) *module = new_handle();
    return kSuccess;
}
KDBGEN_STUB_EXPORT HipError hipModuleLoadData(void** module, const void*) {
    trace("hipModuleLoadData");
    if (module) *module = new_handle();
    return kSuccess;
}
KDBGEN_STUB_EXPORT HipError hipModuleLoadDataEx(void** module, const void* image, unsigned, void*, void*) {
    return hipModuleLoadData(module, image);
}
KDBGEN_STUB_EXPORT HipError hipModuleUnload(void*) { return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipModuleGetFunction(void** function, void*, const char* name) {
    trace("hipModuleGetFunction %s", name ? name : "(null)");
    if (function) *function = new_handle();
    return kSuccess;
}
KDBGEN_STUB_EXPORT HipError hipFuncGetAttribute(int* value, int, void*) { if (value) *value = 0; return kSuccess; }
KDBGEN_STUB_EXPORT HipError hipExtModuleLaunchKernel(void*, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t,
                                                     std::uint32_t, std::uint32_t, std::size_t, void*, void**, void**,
                                                     void*, void*, std::uint32_t) {
    return kSuccess;
}
KDBGEN_STUB_EXPORT HipError hipModuleLaunchKernel(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                                  unsigned, void*, void**, void**) {
    return kSuccess;
}
KDBGEN_STUB_EXPORT HipError hipModuleLaunchCooperativeKernel(void*, unsigned, unsigned, unsigned, unsigned, unsigned,
                                                             unsigned, unsigned, void*, void**) {
    return kSuccess;
}

// MIOpenDriver (libmiopen1-tests) links rocRAND, whose code objects register
// themselves with the runtime when it is loaded, and which launches through the
// runtime API: kdbgen runs MIOpen's own driver under the stub too, so these
// answer as the rest does (nothing runs; a host callback runs at once).
struct FatBinaryRegistration {
    void* handles[4] = {};
};
KDBGEN_STUB_EXPORT void** __hipRegisterFatBinary(const void*) {
    trace("__hipRegisterFatBinary");
    return (new FatBinaryRegistration)->handles;
}
KDBGEN_STUB_EXPORT void __hipUnregisterFatBinary(void** handle) {
    delete reinterpret_cast<FatBinaryRegistration*>(handle);
}
KDBGEN_STUB_EXPORT void __hipRegisterFunction(void**, const void*, char*, const char*, unsigned, void*, void*, void*,
                                              void*, int*) {}
KDBGEN_STUB_EXPORT HipError __hipPushCallConfiguration(std::uint64_t, std::uint32_t, std::uint64_t, std::uint32_t,
                                                       std::size_t, void*) {
    return kSuccess;
}
KDBGEN_STUB_EXPORT HipError __hipPopCallConfiguration(void*, void*, std::size_t* shared, void** stream) {
    if (shared) *shared = 0;
    if (stream) *stream = nullptr;
    return kSuccess;
}
KDBGEN_STUB_EXPORT HipError hipLaunchKernel(const void*, std::uint64_t, std::uint32_t, std::uint64_t, std::uint32_t,
                                            void**, std::size_t, void*) {
    return kSuccess;
}
KDBGEN_STUB_EXPORT int hipGetStreamDeviceId(void*) { return 0; }
KDBGEN_STUB_EXPORT HipError hipStreamGetFlags(void*, unsigned* flags) {
    if (flags) *flags = 0;
    return kSuccess;
}
KDBGEN_STUB_EXPORT HipError hipLaunchHostFunc(void*, void (*function)(void*), void* data) {
    if (function) function(data);
    return kSuccess;
}

// The part of MIOpen's C API (include/miopen/miopen.h) the replay calls,
// declared by kdbgen: function signatures and enum values are the C ABI of
// MIOpen 3.4.0 and 3.5.1 alike (read from Debian's libmiopen-dev 6.4.3 and
// 7.2.4). The replay resolves them with dlsym from the library kdbgen is
// pointed at, so kdbgen builds on a machine that has no MIOpen at all and one
// replay binary serves every installed version.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kdbgen::miopen_api {

using Status = int;  // miopenStatus_t: miopenStatusSuccess = 0
using Handle = void*;
using TensorDescriptor = void*;
using ConvolutionDescriptor = void*;
using PoolingDescriptor = void*;
using ActivationDescriptor = void*;
using LrnDescriptor = void*;
using RnnDescriptor = void*;
using DropoutDescriptor = void*;
using CtcLossDescriptor = void*;

// miopenDataType_t (miopen.h:369-378)
enum DataType : int { Half = 0, Float = 1, Int32 = 2, Int8 = 3, BFloat16 = 5, Double = 6 };
constexpr int kConvolutionMode = 0;  // miopenConvolution (miopen.h:435)

// miopenConvAlgoPerf_t (miopen.h:1281-1295): a 4-byte algorithm union, time, workspace.
struct ConvAlgoPerf {
    int algorithm;
    float time;
    std::size_t memory;
};
// miopenConvSolution_t (miopen.h:1305-1315)
struct ConvSolution {
    float time;
    std::size_t workspace_size;
    std::uint64_t solution_id;
    int algorithm;
};

// One pointer per entry point; the names are the exported symbols.
#define KDBGEN_MIOPEN_FUNCTIONS(X)                                                                                      \
    X(miopenCreate, Status (*)(Handle*))                                                                               \
    X(miopenDestroy, Status (*)(Handle))                                                                               \
    X(miopenGetErrorString, const char* (*)(Status))                                                                   \
    X(miopenCreateTensorDescriptor, Status (*)(TensorDescriptor*))                                                     \
    X(miopenSetTensorDescriptor, Status (*)(TensorDescriptor, int, int, const int*, const int*))                       \
    X(miopenDestroyTensorDescriptor, Status (*)(TensorDescriptor))                                                     \
    X(miopenCreateConvolutionDescriptor, Status (*)(ConvolutionDescriptor*))                                           \
    X(miopenInitConvolutionNdDescriptor, Status (*)(ConvolutionDescriptor, int, const int*, const int*, const int*, int)) \
    X(miopenSetConvolutionGroupCount, Status (*)(ConvolutionDescriptor, int))                                          \
    X(miopenDestroyConvolutionDescriptor, Status (*)(ConvolutionDescriptor))                                           \
    X(miopenConvolutionForwardGetWorkSpaceSize,                                                                        \
      Status (*)(Handle, TensorDescriptor, TensorDescriptor, ConvolutionDescriptor, TensorDescriptor, std::size_t*))  \
    X(miopenConvolutionBackwardDataGetWorkSpaceSize,                                                                   \
      Status (*)(Handle, TensorDescriptor, TensorDescriptor, ConvolutionDescriptor, TensorDescriptor, std::size_t*))  \
    X(miopenConvolutionBackwardWeightsGetWorkSpaceSize,                                                                \
      Status (*)(Handle, TensorDescriptor, TensorDescriptor, ConvolutionDescriptor, TensorDescriptor, std::size_t*))  \
    X(miopenFindConvolutionForwardAlgorithm,                                                                           \
      Status (*)(Handle, TensorDescriptor, const void*, TensorDescriptor, const void*, ConvolutionDescriptor,          \
                 TensorDescriptor, void*, int, int*, ConvAlgoPerf*, void*, std::size_t, bool))                          \
    X(miopenFindConvolutionBackwardDataAlgorithm,                                                                      \
      Status (*)(Handle, TensorDescriptor, const void*, TensorDescriptor, const void*, ConvolutionDescriptor,          \
                 TensorDescriptor, void*, int, int*, ConvAlgoPerf*, void*, std::size_t, bool))                          \
    X(miopenFindConvolutionBackwardWeightsAlgorithm,                                                                   \
      Status (*)(Handle, TensorDescriptor, const void*, TensorDescriptor, const void*, ConvolutionDescriptor,          \
                 TensorDescriptor, void*, int, int*, ConvAlgoPerf*, void*, std::size_t, bool))                          \
    X(miopenConvolutionForward,                                                                                        \
      Status (*)(Handle, const void*, TensorDescriptor, const void*, TensorDescriptor, const void*,                    \
                 ConvolutionDescriptor, int, const void*, TensorDescriptor, void*, void*, std::size_t))                \
    X(miopenConvolutionBackwardData,                                                                                   \
      Status (*)(Handle, const void*, TensorDescriptor, const void*, TensorDescriptor, const void*,                    \
                 ConvolutionDescriptor, int, const void*, TensorDescriptor, void*, void*, std::size_t))                \
    X(miopenConvolutionBackwardWeights,                                                                                \
      Status (*)(Handle, const void*, TensorDescriptor, const void*, TensorDescriptor, const void*,                    \
                 ConvolutionDescriptor, int, const void*, TensorDescriptor, void*, void*, std::size_t))                \
    X(miopenConvolutionForwardGetSolution,                                                                             \
      Status (*)(Handle, TensorDescriptor, TensorDescriptor, ConvolutionDescriptor, TensorDescriptor, std::size_t,    \
                 std::size_t*, ConvSolution*))                                                                         \
    X(miopenConvolutionBackwardDataGetSolution,                                                                        \
      Status (*)(Handle, TensorDescriptor, TensorDescriptor, ConvolutionDescriptor, TensorDescriptor, std::size_t,    \
                 std::size_t*, ConvSolution*))                                                                         \
    X(miopenConvolutionBackwardWeightsGetSolution,                                                                     \
      Status (*)(Handle, TensorDescriptor, TensorDescriptor, ConvolutionDescriptor, TensorDescriptor, std::size_t,    \
                 std::size_t*, ConvSolution*))                                                                         \
    X(miopenConvolutionForwardCompileSolution,                                                                         \
      Status (*)(Handle, TensorDescriptor, TensorDescriptor, ConvolutionDescriptor, TensorDescriptor, std::uint64_t)) \
    X(miopenConvolutionBackwardDataCompileSolution,                                                                    \
      Status (*)(Handle, TensorDescriptor, TensorDescriptor, ConvolutionDescriptor, TensorDescriptor, std::uint64_t)) \
    X(miopenConvolutionBackwardWeightsCompileSolution,                                                                 \
      Status (*)(Handle, TensorDescriptor, TensorDescriptor, ConvolutionDescriptor, TensorDescriptor, std::uint64_t)) \
    X(miopenConvolutionForwardImmediate,                                                                               \
      Status (*)(Handle, TensorDescriptor, const void*, TensorDescriptor, const void*, ConvolutionDescriptor,          \
                 TensorDescriptor, void*, void*, std::size_t, std::uint64_t))                                          \
    X(miopenConvolutionBackwardDataImmediate,                                                                          \
      Status (*)(Handle, TensorDescriptor, const void*, TensorDescriptor, const void*, ConvolutionDescriptor,          \
                 TensorDescriptor, void*, void*, std::size_t, std::uint64_t))                                          \
    X(miopenConvolutionBackwardWeightsImmediate,                                                                       \
      Status (*)(Handle, TensorDescriptor, const void*, TensorDescriptor, const void*, ConvolutionDescriptor,          \
                 TensorDescriptor, void*, void*, std::size_t, std::uint64_t))                                          \
    X(miopenDeriveBNTensorDescriptor, Status (*)(TensorDescriptor, TensorDescriptor, int))                             \
    X(miopenBatchNormalizationForwardTraining,                                                                         \
      Status (*)(Handle, int, void*, void*, TensorDescriptor, const void*, TensorDescriptor, void*, TensorDescriptor,  \
                 void*, void*, double, void*, void*, double, void*, void*))                                            \
    X(miopenBatchNormalizationForwardInference,                                                                        \
      Status (*)(Handle, int, void*, void*, TensorDescriptor, const void*, TensorDescriptor, void*, TensorDescriptor,  \
                 void*, void*, void*, void*, double))                                                                  \
    X(miopenBatchNormalizationBackward,                                                                                \
      Status (*)(Handle, int, const void*, const void*, const void*, const void*, TensorDescriptor, const void*,        \
                 TensorDescriptor, const void*, TensorDescriptor, void*, TensorDescriptor, const void*, void*, void*,   \
                 double, const void*, const void*))                                                                    \
    X(miopenCreatePoolingDescriptor, Status (*)(PoolingDescriptor*))                                                   \
    X(miopenSetNdPoolingDescriptor, Status (*)(PoolingDescriptor, int, int, const int*, const int*, const int*))       \
    X(miopenSetPoolingIndexType, Status (*)(PoolingDescriptor, int))                                                   \
    X(miopenSetPoolingWorkSpaceIndexMode, Status (*)(PoolingDescriptor, int))                                          \
    X(miopenPoolingGetWorkSpaceSizeV2, Status (*)(PoolingDescriptor, TensorDescriptor, std::size_t*))                  \
    X(miopenPoolingForward,                                                                                            \
      Status (*)(Handle, PoolingDescriptor, const void*, TensorDescriptor, const void*, const void*, TensorDescriptor, \
                 void*, bool, void*, std::size_t))                                                                     \
    X(miopenPoolingBackward,                                                                                           \
      Status (*)(Handle, PoolingDescriptor, const void*, TensorDescriptor, const void*, TensorDescriptor, const void*,  \
                 TensorDescriptor, const void*, const void*, TensorDescriptor, void*, void*))                          \
    X(miopenDestroyPoolingDescriptor, Status (*)(PoolingDescriptor))                                                   \
    X(miopenCreateActivationDescriptor, Status (*)(ActivationDescriptor*))                                             \
    X(miopenSetActivationDescriptor, Status (*)(ActivationDescriptor, int, double, double, double))                    \
    X(miopenActivationForward,                                                                                         \
      Status (*)(Handle, ActivationDescriptor, const void*, TensorDescriptor, const void*, const void*,                \
                 TensorDescriptor, void*))                                                                             \
    X(miopenActivationBackward,                                                                                        \
      Status (*)(Handle, ActivationDescriptor, const void*, TensorDescriptor, const void*, TensorDescriptor,           \
                 const void*, TensorDescriptor, const void*, const void*, TensorDescriptor, void*))                    \
    X(miopenDestroyActivationDescriptor, Status (*)(ActivationDescriptor))                                             \
    X(miopenSoftmaxForward_V2,                                                                                         \
      Status (*)(Handle, const void*, TensorDescriptor, const void*, const void*, TensorDescriptor, void*, int, int))  \
    X(miopenSoftmaxBackward_V2,                                                                                        \
      Status (*)(Handle, const void*, TensorDescriptor, const void*, TensorDescriptor, const void*, const void*,       \
                 TensorDescriptor, void*, int, int))                                                                   \
    X(miopenCreateLRNDescriptor, Status (*)(LrnDescriptor*))                                                           \
    X(miopenSetLRNDescriptor, Status (*)(LrnDescriptor, int, unsigned, double, double, double))                        \
    X(miopenLRNGetWorkSpaceSize, Status (*)(TensorDescriptor, std::size_t*))                                           \
    X(miopenLRNForward,                                                                                                \
      Status (*)(Handle, LrnDescriptor, const void*, TensorDescriptor, const void*, const void*, TensorDescriptor,      \
                 void*, bool, void*))                                                                                  \
    X(miopenLRNBackward,                                                                                               \
      Status (*)(Handle, LrnDescriptor, const void*, TensorDescriptor, const void*, TensorDescriptor, const void*,      \
                 TensorDescriptor, const void*, const void*, TensorDescriptor, void*, const void*))                    \
    X(miopenDestroyLRNDescriptor, Status (*)(LrnDescriptor))                                                           \
    X(miopenOpTensor,                                                                                                  \
      Status (*)(Handle, int, const void*, TensorDescriptor, const void*, const void*, TensorDescriptor, const void*,  \
                 const void*, TensorDescriptor, void*))                                                                \
    X(miopenSetTensor, Status (*)(Handle, TensorDescriptor, void*, const void*))                                       \
    X(miopenScaleTensor, Status (*)(Handle, TensorDescriptor, void*, const void*))                                    \
    X(miopenCreateDropoutDescriptor, Status (*)(DropoutDescriptor*))                                                   \
    X(miopenDestroyDropoutDescriptor, Status (*)(DropoutDescriptor))                                                   \
    X(miopenDropoutGetStatesSize, Status (*)(Handle, std::size_t*))                                                    \
    X(miopenDropoutGetReserveSpaceSize, Status (*)(TensorDescriptor, std::size_t*))                                    \
    X(miopenSetDropoutDescriptor,                                                                                      \
      Status (*)(DropoutDescriptor, Handle, float, void*, std::size_t, unsigned long long, bool, bool, int))           \
    X(miopenDropoutForward,                                                                                            \
      Status (*)(Handle, DropoutDescriptor, TensorDescriptor, TensorDescriptor, const void*, TensorDescriptor, void*,  \
                 void*, std::size_t))                                                                                  \
    X(miopenDropoutBackward,                                                                                           \
      Status (*)(Handle, DropoutDescriptor, TensorDescriptor, TensorDescriptor, const void*, TensorDescriptor, void*,  \
                 void*, std::size_t))                                                                                  \
    X(miopenCreateCTCLossDescriptor, Status (*)(CtcLossDescriptor*))                                                   \
    X(miopenDestroyCTCLossDescriptor, Status (*)(CtcLossDescriptor))                                                   \
    X(miopenSetCTCLossDescriptor, Status (*)(CtcLossDescriptor, int, int, bool))                                       \
    X(miopenGetCTCLossWorkspaceSize,                                                                                   \
      Status (*)(Handle, TensorDescriptor, TensorDescriptor, const int*, const int*, const int*, int,                  \
                 CtcLossDescriptor, std::size_t*))                                                                     \
    X(miopenCTCLoss,                                                                                                   \
      Status (*)(Handle, TensorDescriptor, const void*, const int*, const int*, const int*, void*, TensorDescriptor,   \
                 void*, int, CtcLossDescriptor, void*, std::size_t))                                                   \
    X(miopenCreateRNNDescriptor, Status (*)(RnnDescriptor*))                                                           \
    X(miopenDestroyRNNDescriptor, Status (*)(RnnDescriptor))                                                           \
    X(miopenSetRNNDescriptor, Status (*)(RnnDescriptor, int, int, int, int, int, int, int, int))                       \
    X(miopenSetRNNDescriptor_V2, Status (*)(RnnDescriptor, int, int, DropoutDescriptor, int, int, int, int, int, int)) \
    X(miopenSetRNNPaddingMode, Status (*)(RnnDescriptor, int))                                                         \
    X(miopenGetRNNParamsDescriptor, Status (*)(Handle, RnnDescriptor, TensorDescriptor, TensorDescriptor, int))        \
    X(miopenGetRNNParamsSize, Status (*)(Handle, RnnDescriptor, TensorDescriptor, std::size_t*, int))                 \
    X(miopenGetRNNWorkspaceSize, Status (*)(Handle, RnnDescriptor, int, const TensorDescriptor*, std::size_t*))       \
    X(miopenGetRNNTrainingReserveSize, Status (*)(Handle, RnnDescriptor, int, const TensorDescriptor*, std::size_t*)) \
    X(miopenGetRNNInputTensorSize, Status (*)(Handle, RnnDescriptor, int, const TensorDescriptor*, std::size_t*))     \
    X(miopenGetRNNHiddenTensorSize, Status (*)(Handle, RnnDescriptor, int, const TensorDescriptor*, std::size_t*))    \
    X(miopenRNNForwardTraining,                                                                                        \
      Status (*)(Handle, RnnDescriptor, int, const TensorDescriptor*, const void*, TensorDescriptor, const void*,      \
                 TensorDescriptor, const void*, TensorDescriptor, const void*, const TensorDescriptor*, void*,         \
                 TensorDescriptor, void*, TensorDescriptor, void*, void*, std::size_t, void*, std::size_t))            \
    X(miopenRNNForwardInference,                                                                                       \
      Status (*)(Handle, RnnDescriptor, int, const TensorDescriptor*, const void*, TensorDescriptor, const void*,      \
                 TensorDescriptor, const void*, TensorDescriptor, const void*, const TensorDescriptor*, void*,         \
                 TensorDescriptor, void*, TensorDescriptor, void*, void*, std::size_t))                                \
    X(miopenRNNBackwardData,                                                                                           \
      Status (*)(Handle, RnnDescriptor, int, const TensorDescriptor*, const void*, const TensorDescriptor*,            \
                 const void*, TensorDescriptor, const void*, TensorDescriptor, const void*, TensorDescriptor,          \
                 const void*, TensorDescriptor, const void*, TensorDescriptor, const void*, const TensorDescriptor*,   \
                 void*, TensorDescriptor, void*, TensorDescriptor, void*, void*, std::size_t, void*, std::size_t))     \
    X(miopenRNNBackwardWeights,                                                                                        \
      Status (*)(Handle, RnnDescriptor, int, const TensorDescriptor*, const void*, TensorDescriptor, const void*,      \
                 const TensorDescriptor*, const void*, TensorDescriptor, void*, void*, std::size_t, const void*,       \
                 std::size_t))

}  // namespace kdbgen::miopen_api

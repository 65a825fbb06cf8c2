// Arithmetic the solver families share, as MIOpen writes it once for all of them:
// integer_divide_ceil and integer_least_multiple (src/include/miopen/solver/implicitgemm_util.hpp:
// 640-651, MIOpen 3.3.0). The caller names the type, as MIOpen's call sites fix it by their
// operands: the width, and so any wrap-around, is the one the solver's original computes in.
#pragma once

namespace kdbgen::solvers {

template <typename T>
constexpr T integer_divide_ceil(T x, T y) {
    return (x + y - 1) / y;
}

template <typename T>
constexpr T integer_least_multiple(T x, T multiple) {
    return integer_divide_ceil<T>(x, multiple) * multiple;
}

}  // namespace kdbgen::solvers

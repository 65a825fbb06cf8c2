// kdbgen: the part of hiprtc's built-in declarations that sits outside any
// HIP header (hiprtc adds it before compiling): __hip_internal, the std
// type-trait basics, and the half type.
#pragma once

// hiprtc's runtime header offers these in namespace __hip_internal (and the
// type-trait basics in std); MIOpen's miopen_cstdint.hpp and
// miopen_type_traits.hpp build on exactly this set.
namespace __hip_internal {
typedef __INT8_TYPE__ int8_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __INT16_TYPE__ int16_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __INT32_TYPE__ int32_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT64_TYPE__ uint64_t;
template <class T, T v> struct integral_constant {
    static constexpr T value = v;
    typedef T value_type;
    typedef integral_constant type;
    constexpr operator value_type() const noexcept { return value; }
};
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <class T, class U> struct is_same : false_type {};
template <class T> struct is_same<T, T> : true_type {};
}  // namespace __hip_internal
namespace std {
using __hip_internal::enable_if;
using __hip_internal::false_type;
using __hip_internal::integral_constant;
using __hip_internal::is_same;
using __hip_internal::true_type;
}  // namespace std

// hiprtc predefines the half type; Clang's _Float16 is the same storage and arithmetic.
typedef _Float16 __half;
typedef __half half;


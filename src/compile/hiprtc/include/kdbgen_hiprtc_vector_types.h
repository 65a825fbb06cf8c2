// kdbgen: HIP's short type names and vector types (char1 ... double4) with
// their make_* constructors, as hiprtc predefines them. Like HIP's own, each
// is a struct whose named members (x, y, z, w) share storage with a Clang
// native vector, so that members can be bound to references and the whole
// vector can be loaded and stored as one.
#pragma once

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef long long longlong;
typedef unsigned long long ulonglong;

#define KDBGEN_HIP_VECTOR_OPERATORS(V)                                                                      \
    __device__ __host__ friend V operator+(V a, const V& b) { a.data += b.data; return a; }                 \
    __device__ __host__ friend V operator-(V a, const V& b) { a.data -= b.data; return a; }                 \
    __device__ __host__ friend V operator*(V a, const V& b) { a.data *= b.data; return a; }                 \
    __device__ __host__ friend V operator/(V a, const V& b) { a.data /= b.data; return a; }                 \
    __device__ __host__ V& operator+=(const V& b) { data += b.data; return *this; }                          \
    __device__ __host__ V& operator-=(const V& b) { data -= b.data; return *this; }                          \
    __device__ __host__ V& operator*=(const V& b) { data *= b.data; return *this; }                          \
    __device__ __host__ V& operator/=(const V& b) { data /= b.data; return *this; }

#define KDBGEN_HIP_VECTOR_TYPES(T, name)                                                                    \
    struct name##1 {                                                                                        \
        union { T data; struct { T x; }; };                                                                 \
        name##1() = default;                                                                                \
        __device__ __host__ constexpr name##1(T x_) : data(x_) {}                                            \
    };                                                                                                      \
    struct name##2 {                                                                                        \
        typedef T Native __attribute__((ext_vector_type(2)));                                               \
        union { Native data; struct { T x, y; }; };                                                         \
        name##2() = default;                                                                                \
        __device__ __host__ explicit name##2(T v) : data{v, v} {}                                           \
        __device__ __host__ name##2(T x_, T y_) : data{x_, y_} {}                                           \
        KDBGEN_HIP_VECTOR_OPERATORS(name##2)                                                                \
    };                                                                                                      \
    struct name##3 {                                                                                        \
        T x, y, z;                                                                                          \
    };                                                                                                      \
    struct name##4 {                                                                                        \
        typedef T Native __attribute__((ext_vector_type(4)));                                               \
        union { Native data; struct { T x, y, z, w; }; };                                                   \
        name##4() = default;                                                                                \
        __device__ __host__ explicit name##4(T v) : data{v, v, v, v} {}                                     \
        __device__ __host__ name##4(T x_, T y_, T z_, T w_) : data{x_, y_, z_, w_} {}                       \
        KDBGEN_HIP_VECTOR_OPERATORS(name##4)                                                                \
    };                                                                                                      \
    __device__ __host__ inline name##1 make_##name##1(T x) { return name##1(x); }                           \
    __device__ __host__ inline name##2 make_##name##2(T x, T y) { return name##2(x, y); }                   \
    __device__ __host__ inline name##3 make_##name##3(T x, T y, T z) { return name##3{x, y, z}; }           \
    __device__ __host__ inline name##4 make_##name##4(T x, T y, T z, T w) { return name##4(x, y, z, w); }

KDBGEN_HIP_VECTOR_TYPES(signed char, char)
KDBGEN_HIP_VECTOR_TYPES(unsigned char, uchar)
KDBGEN_HIP_VECTOR_TYPES(short, short)
KDBGEN_HIP_VECTOR_TYPES(unsigned short, ushort)
KDBGEN_HIP_VECTOR_TYPES(int, int)
KDBGEN_HIP_VECTOR_TYPES(unsigned int, uint)
KDBGEN_HIP_VECTOR_TYPES(long, long)
KDBGEN_HIP_VECTOR_TYPES(unsigned long, ulong)
KDBGEN_HIP_VECTOR_TYPES(long long, longlong)
KDBGEN_HIP_VECTOR_TYPES(unsigned long long, ulonglong)
KDBGEN_HIP_VECTOR_TYPES(float, float)
KDBGEN_HIP_VECTOR_TYPES(double, double)
#undef KDBGEN_HIP_VECTOR_TYPES
#undef KDBGEN_HIP_VECTOR_OPERATORS

struct dim3 {
    uint x, y, z;
    __device__ __host__ constexpr dim3(uint x_ = 1, uint y_ = 1, uint z_ = 1) : x(x_), y(y_), z(z_) {}
};

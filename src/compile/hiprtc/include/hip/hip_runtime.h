// kdbgen: hiprtc resolves <hip/hip_runtime.h> to its built-in declarations,
// which kdbgen_hiprtc_builtins.h (force-included) already provides.
#pragma once
#include "kdbgen_hiprtc_builtins.h"

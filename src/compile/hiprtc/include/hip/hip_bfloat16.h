// kdbgen: hiprtc predefines hip_bfloat16; kdbgen_hiprtc_builtins.h has it.
#pragma once
#include "kdbgen_hiprtc_builtins.h"

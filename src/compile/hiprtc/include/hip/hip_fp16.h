// kdbgen: hiprtc predefines __half and its conversions; kdbgen_hiprtc_builtins.h has them.
#pragma once
#include "kdbgen_hiprtc_builtins.h"

// What ConvAsm7x7c3h224w224k64u2v2p3q3f1, ConvAsm5x10u2v2f1 and
// ConvAsm5x10u2v2b1 (fixed-shape direct assembly convolutions of gfx8/gfx9)
// check alike before their shapes: ctx.use_asm_kernels (on by default), 2-D,
// symmetric pads (a key has one pad per side), code object v2 or v3
// (rmv.IsV2orV3), sizes fit int, no casts, XNACK off, and the device: gfx800,
// gfx802, gfx803, gfx804, gfx900, gfx904, gfx906, gfx908; never gfx90a
// (WORKAROUND_ISSUE_1146, defined 1). Then forward or backward data and the
// default layout. Keys describe packed tensors: HasNonPackedTensors never rejects.
//
// MIOpen 3.3.0 src/solver/conv/ (rocm-6.2.0 src/solver/, same code and lines):
//   conv_asm_7x7c3h224w224k64u2v2p3q3f1.cpp:34, :44-82
//   conv_asm_5x10u2v2f1.cpp:33, :43-80;  conv_asm_5x10u2v2b1.cpp:33, :43-80
#pragma once

#include "kdbgen/solver.hpp"

#include <string_view>

namespace kdbgen::asm_fixed_direct {

inline bool common_checks(const ConvView& p, const SolverContext& ctx, ConvDirection direction, std::string* why) {
    if (!p.Is2d()) return reject(why, "not 2-D");
    if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
    if (p.IsTensorsCasted()) return reject(why, "casted tensors");
    if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
    const std::string_view d = ctx.target.name();
    if (d == "gfx90a") return reject(why, "gfx90a (WORKAROUND_ISSUE_1146)");
    if (!(d == "gfx800" || d == "gfx802" || d == "gfx803" || d == "gfx804" || d == "gfx900" || d == "gfx904" ||
          d == "gfx906" || d == "gfx908"))
        return reject(why, "not gfx8/gfx9 up to gfx908");
    if (p.p.direction != direction) return reject(why, "direction");
    if (!p.IsLayoutDefault()) return reject(why, "layout");
    return true;
}

}  // namespace kdbgen::asm_fixed_direct

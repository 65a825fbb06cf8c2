// Release builds split over machines (--shard K/N): every build goes to one
// shard, builds with the same code identity to the same one, and shards get
// about the same estimated compile cost. Deterministic: the same builds give
// the same assignment on every machine, whatever their order.
#pragma once

#include "kdbgen/enumerate.hpp"
#include "kdbgen/plan.hpp"

#include <string_view>
#include <vector>

namespace kdbgen {

struct ShardSpec {
    unsigned index = 0;  // 0-based
    unsigned count = 1;
};
ShardSpec parse_shard(std::string_view text);  // "2/3" -> {1, 3}; InputError otherwise

// The one dealing rule of both engines: units with the same identity go to the
// same shard, largest estimated cost first onto the least-loaded shard (LPT;
// ties: lowest shard, then identity order). The native build deals kernel
// builds (identity: what compiles once), the MIOpen engine problems (identity:
// the problem), to shards and to its replay processes alike.
struct ShardUnit {
    std::string identity;
    double cost = 1.0;
};
std::vector<unsigned> assign_shards(const std::vector<ShardUnit>& units, unsigned count);
// What a problem costs the MIOpen engine, relatively: a convolution's Find
// builds a kernel for each applicable solver, a 3x3 one's more (Winograd and
// the direct kernels) and the backward ones more than forward; a pooling or
// activation builds one or two.
double estimated_replay_cost(const Problem& problem);
double estimated_compile_cost(const KernelBuild& build);
std::vector<unsigned> assign_shards(const std::vector<KernelBuild>& builds, unsigned count);
std::vector<unsigned> assign_shards(const std::vector<const KernelBuild*>& builds, unsigned count);
// The plan with only the builds shard `spec` builds, in their order (a copy: the plan is
// being stored in the plan cache meanwhile).
Plan shard_of(const Plan& plan, const ShardSpec& spec);

}  // namespace kdbgen

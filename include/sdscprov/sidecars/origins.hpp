// The origins map (docs/origins-map.md): sdscprov's own sidecar, version 1. It carries what
// torch-spyre knows at create_op_spec: per kernel, its ordered OpSpecs with
// their FX origins; per FX node, its ATen op and stack trace.
#pragma once

#include "sdscprov/core/file_size.hpp"
#include "sdscprov/core/problem.hpp"
#include "sdscprov/handle/debug_handle.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov {

struct FxNode {
    std::optional<std::string> original_aten; // e.g. "aten.addmm.default"
    std::optional<std::string> stack_trace;   // Python traceback text
    // Other node meta (nn_module_stack, source_fn_stack, from_node) is kept as raw JSON text for
    // reports; it never enters a handle.
    std::map<std::string, std::string> other_meta;
};

struct OriginsOp {
    std::string opfunc;                     // the Spyre op, e.g. "batchmatmul"
    std::string buffer;                     // the Inductor buffer name, last element of ir_chain
    std::vector<std::string> origins;       // FX node names
    std::optional<std::string> origin_node; // the buffer's origin_node, when it has one
    std::vector<TransformStep> transform_history;
    std::vector<std::uint64_t> spec_path; // position in the OpSpec/LoopSpec tree; empty: list order
    TextPosition pos;                     // where the op is in the map file
    // A handle given by a sidecar (spyre_provenance.json): written as it is, never derived. Held
    // apart: a map has a hundred thousand ops, and an inline DebugHandle would be most of each.
    std::shared_ptr<const DebugHandle> handle;
};

struct OriginsKernel {
    std::string name;               // "sdsc_fused_addmm_linear_relu_0"
    std::optional<std::string> dir; // the exact kernel directory name, when known
    std::optional<std::string> metadata;
    std::vector<OriginsOp> ops; // OpSpec order
    TextPosition pos;
    // From spyre_provenance.json: the kernel identity, and `ops` are its spec bindings (OpSpecs
    // that hold a handle, each placed by its spec_path), not every OpSpec in order.
    std::optional<std::string> identity;
};

struct OriginsMap {
    std::string path;
    std::map<std::string, FxNode> nodes;
    std::vector<OriginsKernel> kernels;
    // The kernels a KernelFilter left out: how many, and the first of them, without their ops.
    std::size_t left_out = 0;
    std::vector<OriginsKernel> first_left_out;
};

// Which kernels of a map a run keeps (those of the directories it walked: a map of a whole model
// against a few of its kernel directories need not be held whole). Every kernel is read and
// checked all the same; those `keep` refuses are counted in OriginsMap::left_out, the first
// `named` of them kept by name and position, and the nodes only they named are dropped.
struct KernelFilter {
    std::function<bool(const OriginsKernel&)> keep;
    std::size_t named = 0;
};

// `map` with only the kernels `filter` keeps, as the readers leave it.
void filter_kernels(OriginsMap& map, const KernelFilter& filter);

struct OriginsReadResult {
    std::optional<OriginsMap> map; // set when the file is a valid origins map
    std::vector<Problem> problems; // errors with path:line:col (unknown members included)
};

// Reads and validates an origins map file. Unknown members anywhere are errors, so that typos do
// not pass silently; so are wrong types, a missing or unsupported `sdscprov_origins` version, and
// origins that name no node in `nodes`. With `filter`, only the kernels it keeps are held (when
// the map lists its nodes before its kernels, each kernel is dropped as soon as it is read).
OriginsReadResult read_origins_map(const std::string& path,
                                   std::uint64_t max_size = default_max_file_size,
                                   const KernelFilter* filter = nullptr);
OriginsReadResult parse_origins_map(const std::string& path, std::string_view bytes);

} // namespace sdscprov

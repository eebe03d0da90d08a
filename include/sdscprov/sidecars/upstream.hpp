// Upstream PyTorch's provenance tracking files: the node mappings
// (`inductor_provenance_tracking_node_mappings.json`, version 1 without `version` and plain
// kernel keys, version 2 with `version: 2.0` and keys `<kernel>:<N>`) and the kernel stack traces
// (`inductor_provenance_tracking_kernel_stack_traces.json`). Kernel level only: which FX nodes a
// kernel came from, never which op; sdscprov uses them in reports, not to make handles.
#pragma once

#include "sdscprov/core/file_size.hpp"
#include "sdscprov/core/problem.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

using NameLists = std::map<std::string, std::vector<std::string>, std::less<>>;

struct UpstreamMappings {
    std::string path;
    double version = 1.0; // node mappings: 1.0 when the file has no `version`
    NameLists pre_to_post;
    NameLists post_to_pre;
    NameLists code_to_post; // kernel (v2: "<kernel>:<N>") -> post-grad nodes
    NameLists post_to_code;
    NameLists kernel_stack_traces; // from a kernel stack traces file
};

// The two kinds of file, for messages that name them.
inline constexpr std::string_view upstream_kinds =
    "PyTorch's provenance node mappings have preToPost, postToPre, cppCodeToPost, postToCppCode "
    "or version; its kernel stack traces map kernel names to lists of stack traces";

struct UpstreamReadResult {
    std::optional<UpstreamMappings> mappings;
    std::vector<Problem> problems; // bad-mappings (or parse-error, io-error) at path:line:col
};

// Reads either file, telling them apart by their shape: an object with preToPost / postToPre /
// cppCodeToPost / postToCppCode (and `version`) is a node mappings file; an object of kernel
// name -> list of strings is a kernel stack traces file; any other object is neither
// (unknown-sidecar). A file of either kind that names no kernel (`{}`, `{"version": 2.0}`) is
// read, with an empty-sidecar warning.
UpstreamReadResult read_upstream_mappings(const std::string& path,
                                          std::uint64_t max_size = default_max_file_size);
UpstreamReadResult parse_upstream_mappings(const std::string& path, std::string_view bytes);

// What the mappings say about one kernel: the keys that name it (`kernel`, or `kernel:<N>` for
// each call), its post-grad nodes (cppCodeToPost), their pre-grad nodes (postToPre), and its
// stack traces; each list without repeats, keys in their byte order.
struct UpstreamKernel {
    std::vector<std::string> keys;
    std::vector<std::string> post_grad_nodes;
    std::vector<std::string> pre_grad_nodes;
    std::vector<std::string> stack_traces;
};
UpstreamKernel upstream_kernel(const std::vector<UpstreamMappings>& all, std::string_view kernel);

} // namespace sdscprov

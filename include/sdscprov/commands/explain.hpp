// Explain (`sdscprov explain TARGET`): one kernel's provenance, op by op, for a person looking at a
// kernel that stalled in the profiler. Everything shown comes from the SDSC files' own
// `debug_handle_`, plus the text of the model source line a handle points at
// when the source-text rule lets it be read (source_text.hpp). docs/explain.md describes the
// output.
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/handle/debug_handle.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/join/handle_index.hpp"
#include "sdscprov/sdsc/scan.hpp"
#include "sdscprov/sidecars/spyre_provenance.hpp"
#include "sdscprov/walk/discover.hpp"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov {

// One SDSC file: its op object and what its handle says. With SDSC de-duplication several
// OpSpecs run one file; explain shows the file once (its handle is the first OpSpec's).
struct ExplainOp {
    std::string file; // the SDSC file's path, as discovered
    FileStatus status = FileStatus::unreadable;
    std::string op_key; // "<N>_<opfunc>" (status ok)
    std::string opfunc; // from the op key
    std::optional<std::uint64_t> index;
    HandleState handle_state = HandleState::absent;
    std::optional<DebugHandle> handle; // when populated
    // The text of line handle->source->start_line (1-based) of handle->source->file, without its
    // line end; nullopt when the handle has no source, there is no such line or the file is not
    // read (source_text.hpp: the report's note says why). Invalid UTF-8 is replaced by U+FFFD.
    std::optional<std::string> source_line_text;
    // The same for each constituent, parallel to handle->fused_from (empty without a handle).
    std::vector<std::optional<std::string>> fused_source_line_texts;
    std::vector<Problem> problems; // the scan's problems (parse error, malformed handle, ...)
};

// One stack trace of the kernel, from PyTorch's kernel stack traces file: the frame a handle
// would take as its source (the innermost outside torch), with that line's text when readable.
struct ExplainTrace {
    std::string trace;
    std::optional<HandleSource> source; // nullopt: the trace has no `File "...", line N` frame
    std::optional<std::string> source_line_text;
};

// A bundle of a profile row that is in no kernel directory: what the sidecar that has its key
// says of it. The kernel's ops are then its direct handles, as the sidecar holds them (no file).
struct ExplainBundle {
    std::string key;
    std::string sidecar;                  // the spyre_provenance.json that has the key
    std::vector<std::string> aten_ops;    // the identity's
    std::vector<std::string> looked_in;   // the caches whose kernel directories were looked at
};

struct ExplainKernel {
    std::string dir;                   // the kernel directory, as discovered (empty: `bundle`)
    std::optional<std::string> kernel; // from the directory's name (or kernel_name.txt)
    std::optional<ExplainBundle> bundle; // a bundle in no kernel directory
    std::vector<ExplainOp> ops;        // file order (by N, then by name)
    // The kernel's pre-grad and post-grad FX nodes, from upstream PyTorch's provenance tracking
    // mappings (kernel level only, `--mappings`); the printers show them only when filled.
    std::vector<std::string> pre_grad_nodes;
    std::vector<std::string> post_grad_nodes;
    // The kernel's stack traces from the mappings (a kernel stack traces file): for kernels
    // written before handles existed, the only source lines there are.
    std::vector<ExplainTrace> stack_traces;
};

// The kernel caches a run of explain looks in, walked once and their handles read once (only when
// a target needs them), whatever the number of targets.
class ExplainCaches {
public:
    ExplainCaches(std::vector<std::string> roots, DiscoverOptions discover, ScanOptions scan);
    const std::vector<std::string>& roots() const { return roots_; }
    // The kernel directories under the roots, in walk order; the walk's problems go to
    // `problems` (the first time).
    const std::vector<KernelDir>& dirs(std::vector<Problem>& problems);
    // Their handles (handle_index.hpp), read the first time.
    const HandleIndex& index(std::vector<Problem>& problems);
    const DiscoverOptions& discover_options() const { return discover_; }
    const ScanOptions& scan_options() const { return scan_; }

private:
    std::vector<std::string> roots_;
    DiscoverOptions discover_;
    ScanOptions scan_;
    std::optional<std::vector<KernelDir>> dirs_;
    std::optional<HandleIndex> index_;
};

// The kernel directories TARGET names, in discovery order:
// - an existing file: its kernel directory with only that file (whatever the file's name);
// - an existing directory: every kernel directory found below it (usually itself);
// - otherwise, when TARGET has no '/', a kernel name: every kernel directory of the caches whose
//   kernel name (its directory's name, or a name of its kernel_name.txt), or whose directory
//   name, is TARGET (a cache keeps every recompile, so a name can have several directories).
// - a row label of `sdscprov profile` (explain_label: never taken for a path):
//   KERNEL@DIRECTORY-NAME is the kernel directories of that name; KERNEL@KEY (a bare KEY, a
//   kernel event's name), KEY a provenance key, is its bundle's directories as profile pairs them
//   (resolve_bundle_dirs), which only a sidecar of `sidecars` can say. A bundle of a sidecar in no
//   directory sets `dirless` (when given) and gives none, without a problem. Without a sidecar,
//   KERNEL@KEY is KERNEL's directory when KERNEL has one; several are a problem that lists them.
// Nothing found is a `bad_argument` problem ("no kernel directory named 'X' under ROOTS") that
// names the nearest kernel and directory names (for a label, KERNEL@DIRECTORY-NAME labels) by
// edit distance, if any is near; walk problems (missing roots, unreadable directories) are
// appended to `problems` too.
std::vector<KernelDir> resolve_explain_target(const std::string& target, ExplainCaches& caches,
                                              std::vector<Problem>& problems,
                                              const std::vector<SpyreProvenance>& sidecars = {},
                                              std::optional<ExplainBundle>* dirless = nullptr);
// The same with caches of their own (one target).
std::vector<KernelDir> resolve_explain_target(const std::string& target,
                                              const std::vector<std::string>& search_roots,
                                              std::vector<Problem>& problems,
                                              const DiscoverOptions& options = {},
                                              const std::vector<SpyreProvenance>& sidecars = {},
                                              const ScanOptions& scan = {});

// A target that names a bundle rather than a path or a kernel: a row label of `sdscprov profile`
// KERNEL@TAIL (TAIL a directory name or a provenance key), a bare provenance key (only with a
// sidecar), or a kernel event's name `spyre_kernel_v1_<summary>_<key>` (its key). Never a path,
// whatever its length: nullopt for any other target.
struct ExplainLabel {
    std::string name;               // KERNEL, empty for a key alone
    std::string tail;               // what follows the first '@'; empty without one
    std::optional<std::string> key; // the provenance key it names, when it names one
};
std::optional<ExplainLabel> explain_label(const std::string& target, bool with_sidecars);

// Up to `count` of `names` nearest to `target` by edit distance (insertions, deletions and
// substitutions of bytes), nearest first, then by name; none farther than a third of the
// target's length (at least 2).
std::vector<std::string> nearest_names(std::string_view target,
                                       const std::vector<std::string>& names,
                                       std::size_t count = 5);

// Scans every file of `dir` and reads the source lines its handles point at through `lines` (one
// for the whole report: each source file is read at most once, and its note says once what was
// not read).
ExplainKernel explain_kernel(const KernelDir& dir, Scanner& scanner, SourceLines& lines);

// Sets `kernel.stack_traces` from the mappings' stack traces of the kernel, each with its source
// line and that line's text (through `lines`).
void explain_stack_traces(ExplainKernel& kernel, const std::vector<std::string>& traces,
                          SourceLines& lines);

} // namespace sdscprov

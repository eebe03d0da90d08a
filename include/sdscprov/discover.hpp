// Discovery: from command-line paths to kernel directories and their SDSC files, in a stable
// order. Knows file names and directory layouts (FORMATS section 1), nothing about file contents.
#pragma once

#include "sdscprov/problem.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// How a file was recognised as an SDSC file (FORMATS section 1).
enum class FileNaming {
    indexed,        // sdsc_<N>.json (since 2026-05-27)
    indexed_opfunc, // sdsc_<N>_<opfunc>.json (2026-05-06 to 2026-05-27)
    execute,        // execute/<kernel>/sdsc.json (before 2026-04)
    named,          // named on the command line: taken whatever its name
};

std::string_view to_string(FileNaming n);

struct SdscName {
    FileNaming naming = FileNaming::named;
    std::optional<std::uint64_t> index; // N, when the name carries it
    std::string opfunc;                 // opfunc, when the name carries it
};

// Recognises sdsc_<N>.json and sdsc_<N>_<opfunc>.json (N decimal, opfunc [A-Za-z0-9_]+).
// `sdsc.json` is recognised by its place (execute/<kernel>/), not by this function.
std::optional<SdscName> match_sdsc_file_name(std::string_view file_name);

// The kernel name in a kernel directory's name, `[<8 hex>_]<kernel>_<8 random>` with the kernel
// starting with `sdsc_`; nullopt for other names (e.g. inductor-spyre-cache/<sha256 key>/).
std::optional<std::string> kernel_name_from_dir(std::string_view dir_name);

struct SdscFile {
    std::string path; // as reached from the command-line argument
    SdscName name;
    bool regular = false; // seen as a regular file when discovered (the reader need not stat it)
    // Reached (with follow_symlinks) through a symlink to a directory outside every directory
    // given to discover(): read like any other file, never written by annotate or strip.
    bool outside_roots = false;
};

struct KernelDir {
    std::string path;                  // the directory, as reached from the argument
    std::optional<std::string> kernel; // from the directory's name
    bool has_bundle = false;           // bundle.mlir beside the files
    std::vector<SdscFile> files;       // by N, then by name
    // sdscprov's own temporary files beside them (".<name>.sdscprov-<pid>-<n>.tmp"): a run that
    // was killed leaves them; the writing commands remove those of runs no longer alive.
    std::vector<std::string> temps;
    // In a sharded run (shard.hpp): the directory's place in the whole walk's order.
    std::optional<std::uint64_t> position;
};

// Where Inductor keeps its cache when no path is given: $TORCHINDUCTOR_CACHE_DIR, else its
// default /tmp/torchinductor_<user>.
std::vector<std::string> default_cache_roots();

// Temporary files are named ".<name>.sdscprov-<pid>-<n>.tmp" beside the file they replace.
bool is_temp_file_name(std::string_view name);

struct DiscoverOptions {
    bool include_incomplete = false; // also walk the kernel cache's *.tmp.* and failed/ entries
    bool follow_symlinks = false;    // follow directory symlinks (loops are detected)
    bool find_temps = false; // also look beside execute/<kernel>/sdsc.json for our temporaries
};

struct DiscoverStats {
    std::uint64_t directories = 0;        // directories read
    std::uint64_t skipped_incomplete = 0; // *.tmp.* and failed/ entries not walked
};

// Walks `roots` in order. A directory root is walked recursively, entries in byte order of their
// names, depth first; each directory holding SDSC files is passed to `on_kernel_dir` once, before
// its subdirectories. Subdirectories of a kernel directory (recognised by its name, or by its
// place in inductor-spyre-cache/) hold backend output and are not walked, and no `execute/`
// directory is walked: both are only read for the oldest layout's execute/<kernel>/sdsc.json.
// File roots are grouped by parent directory (in order of first appearance) after the directory
// roots. Problems (missing roots, unreadable directories) go to `on_problem`; the walk goes on.
DiscoverStats discover(const std::vector<std::string>& roots, const DiscoverOptions& options,
                       const std::function<void(KernelDir&&)>& on_kernel_dir,
                       const std::function<void(Problem&&)>& on_problem);

} // namespace sdscprov

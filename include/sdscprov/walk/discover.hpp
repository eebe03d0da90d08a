// Discovery: from command-line paths to kernel directories and their SDSC files, in a stable
// order. Knows file names and directory layouts, nothing about file contents.
#pragma once

#include "sdscprov/core/path.hpp"
#include "sdscprov/core/problem.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// How a file was recognised as an SDSC file.
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

// The `<8 hex>` prefix of a kernel directory's name `<8 hex>_<kernel>_<8 random>` (the digest
// torch-spyre puts there, and names in a kernel event's args.sdsc_bundle_dir_prefix); nullopt for
// a name without one.
std::optional<std::string_view> dir_prefix_of(std::string_view dir_name);

// The kernel names of a persistent kernel cache entry's `kernel_name.txt` (the bytes given): one
// per line, each once, in the order first written; lines that are not kernel names (letters,
// digits and '_') are left out.
std::vector<std::string> kernel_names_of_list(std::string_view bytes);
inline constexpr std::string_view kernel_name_list = "kernel_name.txt";

// A directory the walk opened, held open (read-only) for everything done in it later: its files
// are opened, and the temporaries created, checked, renamed and synced, through this descriptor,
// never by a path walked again from the top. Should the directory's name meanwhile lead
// elsewhere (the directory moved, exchanged for a symbolic link), all of it still happens in the
// directory the walk read. Closed with its last holder.
class DirectoryFd {
public:
    explicit DirectoryFd(int fd) : fd_(fd) {}
    ~DirectoryFd();
    DirectoryFd(const DirectoryFd&) = delete;
    DirectoryFd& operator=(const DirectoryFd&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

using HeldDirectory = std::shared_ptr<const DirectoryFd>;

struct SdscFile {
    std::string path; // as reached from the command-line argument
    SdscName name;
    bool regular = false; // seen as a regular file when discovered (the reader need not stat it)
    // Reached (with follow_symlinks) through a symlink to a directory outside every directory
    // given to discover(): read like any other file, never written by annotate or strip.
    bool outside_roots = false;
    // A sibling of the files named on the command line (e.g. the staged files a pre-commit hook
    // passes): read where the kernel's join needs it (bundle.mlir positions, ambiguous kernels),
    // never written, and not in any report (drop_context_files).
    bool context = false;
    // The directory holding it, as the walk opened it: the file is opened there by its name
    // (path's last component). Null: opened by path (files made up by tests and tools).
    HeldDirectory dir{};
    // Seen as a symbolic link when its directory was read: read through it (never written).
    // A file that was not a link then is opened without following one (O_NOFOLLOW): a link
    // put in its place since is reported and skipped.
    bool symlink = false;
    // Why it cannot be opened, found before any open (its directory was replaced by a symbolic
    // link during the run: open_kernel_dir()); empty when it can be.
    std::string unreachable{};
};

// How a kernel directory is reached again for its work: from the directory given on the command
// line (held open by the walk) by the names the walk went down, none of them a symbolic link
// unless links are followed.
struct KernelReach {
    HeldDirectory root;    // the directory root (or a named file's directory), held open
    std::string relative;  // the kernel directory below it; empty: the root itself
    bool follow_symlinks = false;
    // With links followed: the roots' real paths, to tell a directory outside them.
    std::shared_ptr<const std::vector<std::string>> real_roots;
};

struct KernelDir {
    std::string path;                  // the directory, as reached from the argument
    KernelReach reach;                 // set by discover(); empty: opened by path
    HeldDirectory fd;                  // the directory opened by open_kernel_dir(), else null
    // From the directory's name; for an entry of the persistent kernel cache, whose name does not
    // carry it, the first name of its kernel_name.txt when it has one.
    std::optional<std::string> kernel;
    // The other names of that kernel_name.txt (several kernels can hash to one entry).
    std::vector<std::string> other_kernels;
    bool has_bundle = false; // bundle.mlir beside the files
    std::vector<SdscFile> files;       // by N, then by name
    // sdscprov's own temporary files beside them (names as parse_temp_file_name() reads them): a
    // run that was killed leaves them; the writing commands remove those whose writer is gone.
    std::vector<std::string> temps;
    // In a sharded run (shard.hpp): the directory's place in the whole walk's order.
    std::optional<std::uint64_t> position;
};

// Removes the context files from `dir.files` (the named files keep their order).
void drop_context_files(KernelDir& dir);

// Opens the kernel directory for its work, from its reach's root and never through a symbolic
// link (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, else one openat with O_NOFOLLOW per
// name), and the directory of each of its files (execute/<kernel>/ of the oldest layout) from
// it: the files are then opened, and written, there. A directory that is no longer one (a
// symbolic link put in its place since the walk read it) is not followed: each of its files gets
// `unreachable`, saying so, and bundle.mlir is not read. With links followed, a directory that
// turns out to lie outside the roots has its files marked `outside_roots` (never written).
// Without a reach (a kernel made up by hand), nothing is opened: files are opened by path.
void open_kernel_dir(KernelDir& dir);

// Closes what `dir` holds open (its directory descriptors), once nothing more is read or written
// in it: a run holds only the directories of the kernels under way.
void release_directories(KernelDir& dir);

// Where Inductor keeps its cache when no path is given: $TORCHINDUCTOR_CACHE_DIR, else its
// default /tmp/torchinductor_<user>.
std::vector<std::string> default_cache_roots();


// Temporary files are named ".<name>.sdscprov-b<boot>-<run>-<n>.tmp" beside the file they
// replace: <name> the file's name (shortened when long, see temp_embedded_name()), <boot> 8
// lowercase hex digits naming the kernel that ran the writer (the start of its boot id, the same in
// every pid namespace of one machine), <run> 16 random lowercase hex digits drawn once per run,
// <n> the run's count of temporaries (decimal). Nothing else is taken for one of ours: a file
// merely named like one ("...sdscprov-4000000-backup.tmp", or our own names before the run token)
// is never touched.
struct TempFileName {
    std::string_view embedded; // <name>
    std::string_view boot;     // <boot>
    std::string_view run;      // <run>
};
std::optional<TempFileName> parse_temp_file_name(std::string_view name);
bool is_temp_file_name(std::string_view name);

// The <name> part of the temporaries of the file named `file_name`: the name itself when it has at
// most 180 bytes, else its first bytes (cut at a UTF-8 character boundary), '~' and 16 hex digits
// of a hash of the whole name, 180 bytes in all: the temporary of a 255-byte name fits NAME_MAX.
std::string temp_embedded_name(std::string_view file_name);

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
// roots; each group is its whole kernel directory, the SDSC files not named being `context`.
// A file or directory is visited once however often and under whatever names the roots reach it
// (`c c`, `c ./c`, `c c/k/sdsc_0.json`). Problems go to `on_problem` and the walk goes on:
// missing roots, unreadable directories, a directory root without any SDSC file
// (no-sdsc-files), a directory symlink to SDSC files that was not followed
// (symlink-not-followed, a note).
DiscoverStats discover(const std::vector<std::string>& roots, const DiscoverOptions& options,
                       const std::function<void(KernelDir&&)>& on_kernel_dir,
                       const std::function<void(Problem&&)>& on_problem);

} // namespace sdscprov

// Safe replace: new bytes go to a temporary file in the same directory, which is renamed over the
// original only if the original is still the file we read. A reader sees the old file or the new
// one, never a half-written one; a killed run leaves at most our own temporary files behind.
#pragma once

#include "sdscprov/problem.hpp"
#include "sdscprov/scan.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

enum class Durability {
    none,  // no fsync: the OS writes when it likes (a crash may lose the new content, never mix)
    batch, // temps of a batch written, one syncfs, renames, one fsync per directory
    full,  // fsync of each temp before its rename, fsync of the directory after
};

// Temporary files: see is_temp_file_name() in discover.hpp.

// The pid in a temporary file's name, 0 when it has none.
long temp_file_pid(std::string_view name);

// A new temporary file's path beside `path`: ".<name>.sdscprov-<pid>-<n>.tmp", n counting up in
// this process (so a later run can tell a dead run's leftovers).
std::string temp_path_beside(const std::string& path);

struct PendingReplace {
    std::string path;   // the file to replace
    std::string temp;   // its new content, written
    FileStamp original; // the file as we read it
    bool done = false;  // renamed over the original
};

// Writes `bytes` to a new temporary file beside `path` with the original's mode (and owner, when
// we may set it); fsyncs it with Durability::full. On failure returns nullopt with a problem, and
// no temporary file is left. A read-only original (no write permission for its owner) is never
// replaced, not even by root: write-failed, nothing written.
std::optional<PendingReplace> write_temp(const std::string& path, std::string_view bytes,
                                         const FileStamp& original, Durability durability,
                                         Problem& problem);

// Renames each temp over its file if the file still is the one we read (same device, inode, size
// and modification time), else removes the temp and reports `changed-on-disk`: someone (a
// compile) rewrote it after our read, and their file wins. With Durability::batch, one syncfs
// first (when it fails, e.g. a full disk, no file is replaced and every temp is removed); with
// batch and full, each directory is fsynced once after its renames.
std::vector<Problem> commit(std::vector<PendingReplace>& pending, Durability durability);

// Removes every file in `pending` that was not renamed (after an error elsewhere).
void discard(std::vector<PendingReplace>& pending);

} // namespace sdscprov

// How annotate and strip write one file: the edit made, checked and written to a temporary
// beside the original (commands/ only; rewrite.hpp holds what the commands' callers see).
#pragma once

#include "sdscprov/commands/rewrite.hpp"
#include "sdscprov/sdsc/scan.hpp"
#include "sdscprov/write/writer.hpp"

#include <functional>

namespace sdscprov {

// What an edit leaves of the nested handles (ScanResult::nested_handles).
enum class NestedAfter {
    kept,    // the edit is of the op's handle only
    nulled,  // strip: every one null
    removed, // strip --remove: none
};

// One file's edit and what the file must hold after it.
struct CheckedEdit {
    std::function<Splice()> make;        // the edit of the read bytes (it may throw)
    HandleState expected;                // the op's handle state after the edit
    const DebugHandle* handle = nullptr; // when populated, the handle it must read back as
    NestedAfter nested = NestedAfter::kept;
};

// The kernel directory that a rewriting command's files are written for.
struct KernelWrite {
    KernelReport& report;         // its problems
    KernelRewrite& rewrite;       // its outcomes and temporaries
    TempDirectories& directories; // its directories, held open by the temporaries
    const WriteSettings& settings;
};

// Makes a file's edit, checks it, and in write mode writes the new bytes to a temporary file
// beside the original (renamed over it by the commit). The check costs a small parse of the
// edit's text (splice_check.hpp); an edit it cannot prove is checked by a full scan of the new
// bytes. A failed check is a bug of ours, caught before anything was written: the file stays as
// it is. The new bytes are assembled only for a diff or that full scan: otherwise they go to the
// file as three pieces, the read buffer's head and tail around the edit's text. An edit of nested
// handles (not `kept`) is always checked by the full scan: the splice check proves edits of the
// op's own handle only. `outcome` becomes the rewrite's next file outcome.
void write_checked(Scanner& scanner, const ScanResult& scan, const CheckedEdit& edit,
                   FileOutcome& outcome, KernelWrite& kernel);

// Commits the kernel's temporaries once it holds as many as a worker may: a kernel of any width
// stays under the open-files limit. Its files written so far are then new, the others still old,
// until the next chunk or the batch's commit.
void commit_when_full(KernelWrite& kernel);

} // namespace sdscprov

// What the commands give for each kernel directory and for the whole run: the scan's counts, what
// annotate or strip (the two commands that rewrite files) did with each file, and the totals.
// Printers (report/) turn them into reports; the commands (annotate, check, scan) fill them.
#pragma once

#include "sdscprov/handle/compiler_generated.hpp"
#include "sdscprov/join/join.hpp"
#include "sdscprov/sdsc/scan.hpp"
#include "sdscprov/sidecars/upstream.hpp"
#include "sdscprov/walk/discover.hpp"
#include "sdscprov/walk/shard.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov {

struct PendingWrites; // commands/pending_writes.hpp

// Files by the state of their handle as scanned (or why they could not be scanned), and the
// problems found in them.
struct FileStateCounts {
    std::uint64_t files = 0; // SDSC-named files, whatever their content
    std::uint64_t populated = 0;
    std::uint64_t null = 0;
    std::uint64_t absent = 0;
    std::uint64_t malformed = 0;
    std::uint64_t not_sdsc = 0;
    std::uint64_t invalid_json = 0;
    std::uint64_t unreadable = 0;
    std::uint64_t errors = 0;   // problems of severity error
    std::uint64_t warnings = 0; // problems of severity warning
    // Ops the compiler created with no model source by design (compiler_generated.hpp), as their
    // files show them: a source-less handle, or a source-less opfunc without a handle. Counted in
    // the handle states above too; `generated_unhandled` are those of them without a populated
    // handle (null or absent), which no fix can give one.
    std::uint64_t compiler_generated = 0;
    std::uint64_t generated_unhandled = 0;
    // The coverage column: files (status ok) where each provenance member is populated.
    std::array<std::uint64_t, provenance_member_count> provenance{};

    std::uint64_t sdsc_documents() const { return populated + null + absent + malformed; }
    void add(const ScanResult& r);
    void add(const FileStateCounts& other);
};

// What annotate or strip did with one file.
struct FileOutcome {
    FileAction action = FileAction::unmatched;
    bool changes = false; // the file's bytes would change (add, fill, refresh)
    bool written = false; // and they were written
    std::string detail;
    std::string diff; // with --diff
    // The handle a change writes (add, fill, refresh), for the page of the state after the run.
    std::optional<DebugHandle> handle;
};

// A de-duplicated OpSpec's handle that no file holds: its file keeps an earlier OpSpec's handle
// (torch-spyre's rule), so the handle is only in the sidecar. Listed so nothing disappears
// silently.
struct LostHandle {
    std::size_t op = 0;                   // the OpSpec's position in the map entry
    std::vector<std::uint64_t> spec_path; // when the sidecar gives one
    std::string file;                     // the file it shares
    DebugHandle handle;
};

// What annotate said of a kernel directory's join with the map: annotate's own part of a
// KernelRewrite (strip has none).
struct JoinOutcome {
    KernelMatch match = KernelMatch::not_in_map;
    std::string detail;
    std::string map_entry;             // "<map path>:<line>" of the entry, when matched
    std::vector<std::size_t> lost_ops; // OpSpecs whose handle is only in the map (de-duplication)
    std::vector<LostHandle> lost;      // the same OpSpecs with their handles
    // What upstream mappings (files, or spyre_provenance.json's projections) say of the kernel.
    std::optional<UpstreamKernel> upstream;
};

// What annotate or strip did with one kernel directory: each file's outcome and the temporaries
// not yet renamed; annotate's join with the map in `join` (none for strip).
struct KernelRewrite {
    std::optional<JoinOutcome> join;
    std::vector<FileOutcome> files;    // same order as KernelReport::files
    // Temporaries written, not yet renamed: the commands' run state (pending_writes.hpp), opaque
    // here; null when nothing was written.
    std::shared_ptr<PendingWrites> pending;
    bool dry_run = false;                // --dry-run or --check: changes were not written

    // Whether file i holds (or, in a dry run, would hold) a populated handle after this run.
    bool provided(std::size_t i) const {
        const auto& f = files[i];
        bool stripped = f.action == FileAction::strip || f.action == FileAction::remove;
        return f.action == FileAction::keep || f.action == FileAction::differs ||
               (f.changes && !stripped && (f.written || dry_run));
    }
};

// How an op is compiler-generated as its file shows it: a source-less handle, or (null or
// absent handle) a source-less opfunc; GeneratedForm::none for a file that is not an SDSC document.
GeneratedForm compiler_generated(const ScanResult& r);

// One kernel directory's results.
struct KernelReport {
    KernelDir dir;
    std::vector<ScanResult> files; // same order as dir.files
    FileStateCounts counts;        // as scanned
    std::vector<Problem> problems; // about the directory itself (joining, writing)
    std::optional<KernelRewrite> rewrite; // annotate or strip
};

// How op `file` of a kernel directory is compiler-generated: as its file shows it, or, joined
// with an origins map (annotate, check --origins), because the map lists it with no FX origins.
GeneratedForm compiler_generated(const KernelReport& k, std::size_t file);

// Annotate's and strip's totals: files by what was done with them.
struct RewriteCounts {
    std::uint64_t added = 0;
    std::uint64_t filled = 0;
    std::uint64_t refreshed = 0;
    std::uint64_t stripped = 0; // strip: set to null or removed
    // The four above count files written (in a dry run: that would be written); a change whose
    // write failed counts in `failed` instead.
    std::uint64_t written = 0;
    std::uint64_t failed = 0;
    std::uint64_t kept = 0;     // already held the right handle
    std::uint64_t differs = 0;  // hold a different handle, left alone
    std::uint64_t lacking = 0;  // no populated handle after this run
    std::uint64_t provided = 0; // a populated handle after this run
    std::uint64_t kernels_matched = 0;
    std::uint64_t kernels_not_in_map = 0;
    std::uint64_t kernels_ambiguous = 0;
    std::uint64_t kernels_unusable = 0;
    std::uint64_t no_origin = 0;
    std::uint64_t generated_lacking = 0; // of `lacking`, compiler-generated ops
    std::uint64_t opfunc_mismatch = 0;
    std::uint64_t lost_ops = 0;
    void add(const KernelReport& k);
    void add_join(const JoinOutcome& join); // the kernels_* and lost_ops of annotate's join
    std::uint64_t changes() const { return added + filled + refreshed + stripped; }
};

// The files of a kernel directory in which any provenance member is populated after the run:
// as read, or given a handle by it (annotate); a stripped file keeps only its other members.
std::uint64_t files_with_provenance(const KernelReport& k);

// A run's totals, added up once as the kernels are delivered (every printer reads them).
struct Totals {
    std::uint64_t kernels = 0;
    FileStateCounts counts;
    DiscoverStats discovery;
    RewriteCounts rewrites;            // annotate and strip only
    std::uint64_t with_provenance = 0; // files_with_provenance(), summed
    void add(const KernelReport& k);
    // A sharded run's (--shard): what merge needs of the walk.
    std::optional<ShardWalk> shard;
};

} // namespace sdscprov

// merge: the JSON reports of the N shards of a run (`--shard I/N`, shard.hpp) put back together
// into exactly the bytes the same command prints when run once over the same caches.
//
// Mergeable: `--format json` of scan, annotate and strip (`sdscprov_report`) and of check
// (`sdscprov_check`). Kernel directories (check: findings) are put in the whole walk's order by
// their `position`; the problems are the run's own (from any shard: all shards hold them), then
// in walk order each walk problem and each kernel directory's problems; every count in `totals`
// (check: `files`) is summed, except `skipped_incomplete`, which is the whole walk's in every
// shard; the `superdsc_json` coverage is computed again from the sums. The members merge adds
// when sharding (`position`, `scope`, `shard`) are left out. Everything else must be the same in
// every report. docs/report-json.md, "Shards", has the format.
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/core/stream_wait.hpp"

#include <optional>
#include <string>
#include <vector>

namespace sdscprov {

// One shard's JSON report, as printed.
struct ShardReport {
    std::string source; // where it came from (a file name), for messages
    std::string json;
};

// The merged report, or why the reports cannot be merged (`problem`: merge-refused, of no one
// input, its message one sentence naming the report(s) concerned): not JSON, not an sdscprov
// report, made without --shard, reports of different commands, schema versions, tool versions or
// shardings, a shard given twice or missing, kernel directories in two shards or in the wrong
// one, different walks.
struct MergeResult {
    std::string report; // without `problem`: what the single run prints
    std::optional<Problem> problem;
};

MergeResult merge_reports(const std::vector<ShardReport>& reports);

// `sdscprov merge`'s inputs, each named by the user: a regular file, or a stream (a pipe, a FIFO,
// "-" for standard input: `merge <(ssh host cat shard.json) ...`) read to its end and waited on
// as `wait` says (stream_wait.hpp). Each is read once, in the order given (a stream cannot be
// read twice): shard reports merged by merge_reports(), or, when the first is a profile report,
// profile reports merged as profile_merge.hpp says, one report's text held at a time.
struct MergeFilesResult {
    std::string report; // the merged report, without a problem
    // The input that could not be read (io-error, not-a-regular-file: a device, a socket, a
    // directory): nothing merged.
    std::optional<Problem> unreadable;
    std::optional<Problem> refusal; // merge-refused: why the reports cannot be merged
};
MergeFilesResult merge_report_files(const std::vector<std::string>& paths,
                                    const StreamWait& wait);

} // namespace sdscprov

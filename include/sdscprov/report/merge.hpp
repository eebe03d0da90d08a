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

// Reads the report at `path` as every other input is read: opened without blocking (a fifo
// with no writer must not hang the merge), regular files only. nullopt with `problem`
// (not-a-regular-file, io-error) when it cannot be read.
std::optional<ShardReport> read_shard_report(const std::string& path, Problem& problem);

} // namespace sdscprov

// `sdscprov merge` of `profile --format json` reports: each report read back into the
// ProfileReport it was printed from, the reports added up by rank (profile/ranks.hpp) and
// printed again, so that merging the reports of single traces gives the bytes `profile T1 T2 ...
// --format json` prints. A job runner (GNU parallel, a Slurm array) can profile each trace on its
// own and merge the reports afterwards. docs/usage.md has the recipe.
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/core/stream_wait.hpp"
#include "sdscprov/profile/profile.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// The report format version profile writes and merge reads ("sdscprov_profile").
inline constexpr std::uint64_t profile_report_version = 2;

// Whether `json` is a profile report (an object with a "sdscprov_profile" member), of any
// version: merge sends it here, not to the shards' merge.
bool is_profile_report(std::string_view json);

// The report printed as `json` (from `source`, named in errors); nullopt and `error` when it is
// not JSON, not a profile report, of another version, or lacks a member this version writes.
std::optional<ProfileReport> read_profile_report(const std::string& source, std::string_view json,
                                                 std::string& error);

struct ProfileMergeResult {
    std::string report; // the merged report's JSON, without `refusal`
    // Why the reports cannot be merged (merge-refused, of no one input: its message names the
    // report concerned): not JSON, not a profile report, of another version, of other caches,
    // sidecars or clocks.
    std::optional<Problem> refusal;
};

// The reports (source name, JSON text), in the order given, as one report's JSON.
ProfileMergeResult
merge_profile_reports(const std::vector<std::pair<std::string, std::string>>& reports);

// The same for merge's inputs (merge.hpp, merge_report_files): `first`, the text of paths[0]
// (read already: merge tells the two merges apart by it), then the others read one at a time
// (each text let go once read into its report);
// `unreadable`: the input that could not be read, and nothing merged.
struct ProfileMergeFilesResult : ProfileMergeResult {
    std::optional<Problem> unreadable;
};
ProfileMergeFilesResult merge_profile_report_files(const std::vector<std::string>& paths,
                                                   std::string first,
                                                   const StreamWait& wait);

} // namespace sdscprov

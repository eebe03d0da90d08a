// CSV (RFC 4180) for pandas, DuckDB and spreadsheets: profile's rankings (one ranking a file,
// every row), the rows of a comparison (`--baseline`), acelyzer's category table, scan's kernels
// and check's findings. Each is a header row and one record per row, numbers unformatted
// (nanoseconds and counts as integers, shares and ratios as fractions), names and paths with
// their bytes as they are. docs/report-csv.md describes the columns.
#pragma once

#include "sdscprov/profile/compare.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/ranking.hpp"
#include "sdscprov/report/report.hpp"
#include "sdscprov/write/output_files.hpp"

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace sdscprov {

// One ranking of a profile report, every row in the report's order: the row's label and what
// the ranking's kind names (a source line's file, line and text; a name; a bundle's key, kernels
// and directories), then its figures, their columns named as the JSON report's members joined by
// '.' (device_ns, events, stages.DMI.ticks, ..., utilization.ratio), the share of the run's
// device time, and over several traces each rank's device time (rank_ns.<rank>).
std::string render_ranking_csv(const ProfileReport& report, const RankingSpec& spec);

// The file a ranking is written to with --out-dir: "<its --by word>.csv".
std::string ranking_csv_name(const RankingSpec& spec);

// --out-dir's files: one per ranking chosen (none: every ranking of the report or comparison),
// named by ranking_csv_name.
std::vector<OutputFile> ranking_csv_files(const ProfileReport& report,
                                          std::vector<const RankingSpec*> chosen);
std::vector<OutputFile> ranking_csv_files(const ProfileComparison& comparison,
                                          std::vector<const RankingSpec*> chosen);

// The rows of one ranking of a comparison (`--baseline`), in its order: the label, the base and
// the new device time and events, the change in ns and as a fraction of the base time.
std::string render_comparison_csv(const ProfileComparison& comparison, const RankingSpec& spec);

// aiu-trace-analyzer's `_categories.csv` from the category ranking: Pid, Phase, Category,
// Kernel_Time, Frac_Time, Calls, Ideal_Time, Ideal_Cyc, Frac_Ideal, PT_Util, in its units
// (microseconds, cycles, fractions rounded to 4 decimals) and order (by Kernel_Time, the Total row
// last). docs/profile.md says how its figures relate to acelyzer's own.
std::string render_acelyzer_categories(const ProfileReport& report);

// scan's CSV: one record per kernel directory as it comes (its path, kernel, bundle.mlir, the
// counts of its files by state and problem, and of its files holding each provenance member).
std::unique_ptr<ReportPrinter> make_csv_printer(std::ostream& out);

} // namespace sdscprov

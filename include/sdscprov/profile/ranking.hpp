// The rankings of a profile, as data: each is one row of a table (`RankingSpec`) that says what
// its rows are (a row builder over the report's bundles), what every format calls it, and how its
// rows look. The report holds one `Ranking` per row of the table it was built with; the builder,
// the comparison of two runs, the sum over ranks, the reading back of JSON reports, the printers
// (text, JSON, HTML) and `--by` iterate the table, so a new view is one row builder and one row.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

struct ProfileBundle;
struct ProfileRow;
struct SourceLine;

// A key a bundle counts under: its row's label and, for a source line, the line (one of the
// bundle's own).
struct RowKey {
    std::string label;
    const SourceLine* line = nullptr;
};

// What a ranking's rows are, for the formats that show them differently: a model source line
// (file, line and its text), a name (an ATen op, a category: null in JSON for a "[...]" row), or
// one bundle (its key, kernels, directories).
enum class RowKind : std::uint8_t { line, name, bundle };

struct RankingSpec {
    std::string_view word;      // --by; the page's table id
    std::string_view json_key;  // "by_line": the member of the JSON reports holding its rows
    std::string_view json_name; // the row's member naming it: "line", "aten_op", "bundle", ...
    RowKind kind = RowKind::name;
    std::string_view name;         // the text tables': "Source lines" (by device time, ...)
    std::string_view change_title; // the comparison's: "By model source line"
    std::string_view page_title;   // the page's: "Source lines"
    std::string_view column;       // the label column's heading in text: "source line"
    std::string_view page_column;  // and on the page
    std::string_view plural;       // "lines": "(12 more lines; --top 0 shows all)"
    // Under the title: why the rows can add up to more than the whole (`adds_up` false), or what
    // a row is. `shares_whole`: the note ends with " 100%" in one run, " the total" compared.
    std::string_view note;
    bool shares_whole = false;
    // Each event counts in one row (one row per bundle): the rows add up to the whole.
    bool one_row_per_bundle = false;
    // Shown by default only when a kernel directory gave an ideal (the category ranking); its
    // text table is the utilization one (calls, ideal, PT utilization).
    bool needs_ideal = false;
    // profile's option that shows one row's kernels (or a kernel's lines and ops): "--line";
    // empty: none.
    std::string_view drill_option;
    // The keys a bundle counts under (one row per key); with one_row_per_bundle, exactly one.
    void (*keys)(const ProfileBundle& bundle, std::vector<RowKey>& out) = nullptr;
};

// The rankings of a report: the built-in table, or one made for a view of its own.
using RankingTable = std::span<const RankingSpec>;

// The built-in rankings, in their order in every format: by model source line, ATen op, kernel,
// kernel category.
enum class ProfileRanking : std::uint8_t { line, aten, kernel, category };
RankingTable builtin_rankings();
const RankingSpec& ranking_spec(ProfileRanking r);

// What the rankings are ordered by in text: device time, the time lost against the ideal (ties,
// rows without an ideal among them, by device time), (several traces) the spread, the longest
// rank's time over the shortest's (one trace: by device time), or the idle time before their
// activities (timeline.hpp).
enum class ProfileOrder { time, lost, spread, idle };

// What --by chose: the rankings, in the order given (none: the default set), and their order.
struct RankingChoice {
    std::vector<const RankingSpec*> tables;
    ProfileOrder order = ProfileOrder::time;
};

// --by's words ("line", "lost", ...: each ranking's word, and "time", "lost", "idle") in order;
// false, with the first unknown word in `unknown`, when one is none of them.
bool choose_by(const std::vector<std::string>& words, RankingTable table, RankingChoice& by,
               std::string& unknown);
// Every word --by takes: the table's, then the orders'.
std::vector<std::string> by_words(RankingTable table);

// The one ranking two runs are compared and gated by (`--baseline`): the first chosen, else
// source lines.
const RankingSpec& compared_ranking(const RankingChoice& by);

// The text of a source line, where it is shown (nullopt: not readable, or not read).
using LineText = std::function<std::optional<std::string>(const SourceLine&)>;

// The rows of `spec` over `bundles` (their indexes into it), heaviest first (device time, then
// events), then by label; a source line row's text from `text_of`.
std::vector<ProfileRow> ranking_rows(const RankingSpec& spec,
                                     const std::vector<ProfileBundle>& bundles,
                                     const LineText& text_of);

} // namespace sdscprov

// The next step after a report's first screen (`profile --line`, `--op`, `--kernel`): the row of
// a ranking a label names, as a person copies it from the text report, the page or the JSON.
#pragma once

#include "sdscprov/profile/profile.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// The row a drill-down names. `row` null: several rows answer (`several`, `candidates` lists
// them), or none (`candidates`: the rows whose label holds the last part of what was asked, at
// most 10).
struct RowMatch {
    const ProfileRow* row = nullptr;
    bool several = false;
    std::vector<const ProfileRow*> candidates;
};

// The row of `ranking` whose label is `wanted`. Else the rows whose label ends with it where a
// path component starts (`mlp.py:12` finds `/w/models/mlp.py:12`), and a "…" in `wanted` stands
// for any text (a label a terminal shortened: `…/models/mlp.py:12`, `sdsc_fu…_b9d3wz0e`): one
// such row is the row.
RowMatch find_row(const Ranking& ranking, std::string_view wanted);

// When no row of `spec`'s ranking or several answer `wanted` (find_row()): the sentence that says
// so, naming the rows it could mean (the first 10, then how many more); nullopt when one does.
std::optional<std::string> drill_missing(const ProfileReport& report, const RankingSpec& spec,
                                         std::string_view wanted);

// `word` for a POSIX shell: as it is when it holds only characters no shell treats specially,
// else between single quotes (a quote in it as '\'').
std::string shell_word(std::string_view word);

// The `sdscprov explain` command that shows `label` (a kernel row's label) with the report's
// caches and sidecars, its words as shell_word() gives them, then `more` (further options).
std::string explain_command(const ProfileReport& report, std::string_view label,
                            std::string_view more = {});

} // namespace sdscprov

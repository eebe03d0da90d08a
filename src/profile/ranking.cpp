#include "sdscprov/profile/ranking.hpp"

#include "profile/saturating.hpp"

#include "profile/aggregation.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/utilization.hpp"

#include <array>
#include <map>

namespace sdscprov {

namespace {

bool paired(const ProfileBundle& b) {
    return b.resolution != Resolution::unresolved;
}

// A paired bundle counts fully for each of its source lines; any other under its folded root
// ("[no source]", "[unresolved]").
void line_keys(const ProfileBundle& b, std::vector<RowKey>& out) {
    if (paired(b) && !b.lines.empty()) {
        for (const auto& l : b.lines) {
            out.push_back({l.label(), &l});
        }
    } else {
        out.push_back({b.root_label, nullptr});
    }
}

void aten_keys(const ProfileBundle& b, std::vector<RowKey>& out) {
    if (paired(b) && !b.aten_ops.empty()) {
        for (const auto& op : b.aten_ops) {
            out.push_back({op, nullptr});
        }
    } else {
        out.push_back({b.aten_label, nullptr});
    }
}

void kernel_keys(const ProfileBundle& b, std::vector<RowKey>& out) {
    out.push_back({b.label, nullptr});
}

void category_keys(const ProfileBundle& b, std::vector<RowKey>& out) {
    out.push_back({category_label(b.ideal, paired(b)), nullptr});
}

const std::array<RankingSpec, 4> builtin{{
    {.word = "line",
     .json_key = "by_line",
     .json_name = "line",
     .kind = RowKind::line,
     .name = "Source lines",
     .change_title = "By model source line",
     .page_title = "Source lines",
     .column = "source line",
     .page_column = "source line",
     .plural = "lines",
     .note = "a bundle counts fully for each of its lines: the rows can add up to more than",
     .shares_whole = true,
     .drill_option = "--line",
     .keys = line_keys},
    {.word = "aten",
     .json_key = "by_aten",
     .json_name = "aten_op",
     .kind = RowKind::name,
     .name = "ATen ops",
     .change_title = "By ATen op",
     .page_title = "ATen ops",
     .column = "ATen op",
     .page_column = "ATen op",
     .plural = "ops",
     .note = "a bundle counts fully for each of its ops: the rows can add up to more than",
     .shares_whole = true,
     .drill_option = "--op",
     .keys = aten_keys},
    {.word = "kernel",
     .json_key = "by_kernel",
     .json_name = "bundle",
     .kind = RowKind::bundle,
     .name = "Kernels",
     .change_title = "By kernel",
     .page_title = "Kernels",
     .column = "kernel",
     .page_column = "kernel",
     .plural = "kernels",
     .note = "one row per compiled bundle; sdscprov explain takes its label",
     .one_row_per_bundle = true,
     .drill_option = "--kernel",
     .keys = kernel_keys},
    {.word = "category",
     .json_key = "by_category",
     .json_name = "category",
     .kind = RowKind::name,
     .name = "Kernel categories",
     .change_title = "By kernel category",
     .page_title = "Categories",
     .column = "category",
     .page_column = "kernel category",
     .plural = "categories",
     .note = "a kernel's category is that of its largest entry in its ideal cycles file",
     .one_row_per_bundle = false,
     .needs_ideal = true,
     .drill_option = {},
     .keys = category_keys},
}};

constexpr std::array<std::pair<std::string_view, ProfileOrder>, 4> orders{
    {{"time", ProfileOrder::time}, {"lost", ProfileOrder::lost}, {"spread", ProfileOrder::spread},
     {"idle", ProfileOrder::idle}}};

void add_to_row(ProfileRow& row, const RowKey& key, const ProfileBundle& b, std::uint32_t index) {
    if (row.bundles.empty()) {
        row.label = key.label;
        if (key.line != nullptr) {
            row.line = *key.line;
        }
    }
    row.time.add(b.time);
    row.idle.add(b.idle);
    row.launch.launched += b.launch.launched;
    row.launch.skewed += b.launch.skewed;
    row.launch.total_ns = saturating_add(row.launch.total_ns, b.launch.total_ns);
    row.bundles.push_back(index);
}

} // namespace

RankingTable builtin_rankings() {
    return builtin;
}

const RankingSpec& ranking_spec(ProfileRanking r) {
    return builtin[static_cast<std::size_t>(r)];
}

bool choose_by(const std::vector<std::string>& words, RankingTable table, RankingChoice& by,
               std::string& unknown) {
    for (const auto& word : words) {
        bool known = false;
        for (const auto& spec : table) {
            if (spec.word == word) {
                by.tables.push_back(&spec);
                known = true;
            }
        }
        for (const auto& [name, order] : orders) {
            if (name == word) {
                by.order = order;
                known = true;
            }
        }
        if (!known) {
            unknown = word;
            return false;
        }
    }
    return true;
}

std::vector<std::string> by_words(RankingTable table) {
    std::vector<std::string> words;
    for (const auto& spec : table) {
        words.emplace_back(spec.word);
    }
    for (const auto& [name, order] : orders) {
        words.emplace_back(name);
    }
    return words;
}

const RankingSpec& compared_ranking(const RankingChoice& by) {
    return by.tables.empty() ? ranking_spec(ProfileRanking::line) : *by.tables.front();
}

std::vector<ProfileRow> ranking_rows(const RankingSpec& spec,
                                     const std::vector<ProfileBundle>& bundles,
                                     const LineText& text_of) {
    std::vector<ProfileRow> rows;
    std::map<std::string, ProfileRow> by_label;
    std::vector<RowKey> keys;
    for (std::uint32_t i = 0; i < bundles.size(); ++i) {
        keys.clear();
        spec.keys(bundles[i], keys);
        for (const auto& key : keys) {
            if (spec.one_row_per_bundle) {
                add_to_row(rows.emplace_back(), key, bundles[i], i);
            } else {
                add_to_row(by_label[key.label], key, bundles[i], i);
            }
        }
    }
    for (auto& [label, row] : by_label) {
        if (row.line && text_of) {
            row.text = text_of(*row.line);
        }
        rows.push_back(std::move(row));
    }
    sort_rows(rows);
    return rows;
}

void build_rankings(ProfileReport& report, RankingTable table, const LineText& text_of) {
    report.rankings.clear();
    for (const auto& spec : table) {
        report.rankings.push_back({&spec, ranking_rows(spec, report.bundles, text_of)});
    }
}

const Ranking* ProfileReport::ranking(const RankingSpec& spec) const {
    for (const auto& r : rankings) {
        if (r.spec == &spec) {
            return &r;
        }
    }
    return nullptr;
}

const std::vector<ProfileRow>& ProfileReport::rows(ProfileRanking r) const {
    static const std::vector<ProfileRow> none;
    const Ranking* found = ranking(ranking_spec(r));
    return found != nullptr ? found->rows : none;
}

std::vector<Ranking> empty_rankings(RankingTable table) {
    std::vector<Ranking> out;
    for (const auto& spec : table) {
        out.push_back({&spec, {}});
    }
    return out;
}

std::vector<ProfileRow>& ProfileReport::rows(ProfileRanking r) {
    const RankingSpec* spec = &ranking_spec(r);
    for (auto& ranking : rankings) {
        if (ranking.spec == spec) {
            return ranking.rows;
        }
    }
    return rankings.emplace_back(Ranking{spec, {}}).rows;
}

} // namespace sdscprov

#include "sdscprov/profile/drill.hpp"

#include "sdscprov/core/display.hpp"

#include <algorithm>

namespace sdscprov {

namespace {

constexpr std::string_view ellipsis = "\xe2\x80\xa6"; // "…", where a terminal shortened a label

bool ends_at_component(std::string_view label, std::string_view tail) {
    return label.size() >= tail.size() && label.substr(label.size() - tail.size()) == tail &&
           (label.size() == tail.size() || tail.front() == '/' ||
            label[label.size() - tail.size() - 1] == '/');
}

// Whether `label` reads as `pieces` joined by any texts: the first piece at its start, the last
// at its end.
bool fits_pieces(std::string_view label, const std::vector<std::string_view>& pieces) {
    const std::string_view first = pieces.front();
    const std::string_view last = pieces.back();
    if (label.size() < first.size() + last.size() || !label.starts_with(first) ||
        !label.ends_with(last)) {
        return false;
    }
    std::size_t at = first.size();
    const std::size_t end = label.size() - last.size();
    for (std::size_t i = 1; i + 1 < pieces.size(); ++i) {
        auto found = label.substr(0, end).find(pieces[i], at);
        if (found == std::string_view::npos) {
            return false;
        }
        at = found + pieces[i].size();
    }
    return true;
}

} // namespace

RowMatch find_row(const Ranking& ranking, std::string_view wanted) {
    RowMatch m;
    for (const auto& row : ranking.rows) {
        if (row.label == wanted) {
            m.row = &row;
            return m;
        }
    }
    std::vector<std::string_view> pieces;
    for (std::size_t at = 0;;) {
        auto next = wanted.find(ellipsis, at);
        pieces.push_back(wanted.substr(at, next == std::string_view::npos ? next : next - at));
        if (next == std::string_view::npos) {
            break;
        }
        at = next + ellipsis.size();
    }
    if (!wanted.empty()) {
        for (const auto& row : ranking.rows) {
            if (pieces.size() == 1 ? ends_at_component(row.label, wanted)
                                   : fits_pieces(row.label, pieces)) {
                m.candidates.push_back(&row);
            }
        }
    }
    if (m.candidates.size() == 1) {
        m.row = m.candidates.front();
        m.candidates.clear();
        return m;
    }
    m.several = !m.candidates.empty();
    if (m.candidates.empty()) {
        // Nothing answers: the rows that hold its longest piece (a file name, a kernel's name).
        std::string_view longest = *std::max_element(
            pieces.begin(), pieces.end(),
            [](std::string_view a, std::string_view b) { return a.size() < b.size(); });
        if (auto slash = longest.rfind('/'); slash != std::string_view::npos) {
            longest = longest.substr(slash + 1);
        }
        if (auto colon = longest.rfind(':'); colon != std::string_view::npos && colon > 0) {
            longest = longest.substr(0, colon); // mlp.py of mlp.py:99
        }
        for (const auto& row : ranking.rows) {
            if (m.candidates.size() < 10 && !longest.empty() &&
                row.label.find(longest) != std::string::npos) {
                m.candidates.push_back(&row);
            }
        }
    }
    return m;
}

std::optional<std::string> drill_missing(const ProfileReport& report, const RankingSpec& spec,
                                         std::string_view wanted) {
    const Ranking* ranking = report.ranking(spec);
    RowMatch m = ranking != nullptr ? find_row(*ranking, wanted) : RowMatch{};
    if (m.row != nullptr) {
        return std::nullopt;
    }
    const std::string column(spec.column);
    std::string sentence =
        std::string(spec.drill_option) + " " + printable_text(wanted) + ": " +
        (m.several ? "several " + column + " rows answer; give one of them:"
                   : "no " + column + " row answers (--top 0 lists every row)" +
                         (m.candidates.empty() ? "" : "; rows like it:"));
    constexpr std::size_t listed = 10;
    for (std::size_t i = 0; i < m.candidates.size() && i < listed; ++i) {
        sentence += "\n  " + printable_text(m.candidates[i]->label);
    }
    if (m.candidates.size() > listed) {
        sentence += "\n  and " + std::to_string(m.candidates.size() - listed) + " more";
    }
    return sentence;
}

std::string shell_word(std::string_view word) {
    bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("_./:@%+=,-").find(c) != std::string_view::npos;
    });
    if (plain) {
        return std::string(word);
    }
    std::string out = "'";
    for (char c : word) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

std::string explain_command(const ProfileReport& report, std::string_view label,
                            std::string_view more) {
    std::string cmd = "sdscprov explain " + shell_word(label);
    for (const auto& cache : report.caches) {
        cmd += ' ' + shell_word(cache);
    }
    for (const auto& sidecar : report.sidecars) {
        cmd += " --origins " + shell_word(sidecar);
    }
    return cmd + std::string(more);
}

} // namespace sdscprov

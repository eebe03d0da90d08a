#include "report/steps_compared.hpp"

#include "report/profile_format.hpp"

#include <cstdio>
#include <utility>

namespace sdscprov::steps_compared {

using namespace profile_format;

namespace {

std::pair<std::string, std::string> change_cells(std::uint64_t base, std::uint64_t now) {
    const double change = static_cast<double>(now) - static_cast<double>(base);
    char ms[64];
    std::snprintf(ms, sizeof ms, "%+.3f", change / 1e6);
    std::string pct = "-";
    if (base > 0) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%+.1f %%", 100.0 * change / static_cast<double>(base));
        pct = buf;
    }
    return {ms, pct};
}

std::string steps_words(const MeanStep& m) {
    if (!m.step_spans) {
        return "the whole trace (no ProfilerStep span)";
    }
    return thousands(m.steps) + (m.steps == 1 ? " ProfilerStep span" : " ProfilerStep spans");
}

} // namespace

std::string text(const StepsCompared& s, std::size_t width, bool color) {
    auto paint = [color](const char* tone, const std::string& t) {
        return color ? std::string(tone) + t + "\x1b[0m" : t;
    };
    const MeanStep& b = s.base;
    const MeanStep& n = s.now;
    std::string out = "\n";
    out += paint("\x1b[1m", fit("Mean step compared: base " + steps_words(b) + ", new " +
                                    steps_words(n),
                                width, false)) +
           '\n';
    out += paint("\x1b[2m", fit("(each figure summed over a run's steps and divided by them; "
                                "idle summed over the devices)",
                                width, false)) +
           '\n';
    const std::pair<const char*, std::pair<std::uint64_t, std::uint64_t>> rows[] = {
        {"step time", {b.wall_ns, n.wall_ns}},
        {"median step", {b.median_ns, n.median_ns}},
        {"slowest step", {b.max_ns, n.max_ns}},
        {"kernel busy", {b.kernel_busy_ns, n.kernel_busy_ns}},
        {"transfer", {b.transfer_ns, n.transfer_ns}},
        {"idle", {b.idle.ns, n.idle.ns}},
        {"  host wait", {b.idle.host_wait_ns, n.idle.host_wait_ns}},
        {"  launch latency", {b.idle.launch_latency_ns, n.idle.launch_latency_ns}},
        {"  unattributed", {b.idle.unattributed_ns, n.idle.unattributed_ns}},
        {"launch delay median", {b.launch_median_ns, n.launch_median_ns}},
    };
    const std::vector<std::string> head = {"base ms", "new ms", "change ms", "change"};
    std::vector<std::vector<std::string>> cells;
    Columns columns({11, 11, 11, 10});
    columns.fit(head);
    for (const auto& row : rows) {
        auto [base, now] = row.second;
        auto [change_ms, change_pct] = change_cells(base, now);
        cells.push_back({milliseconds(base), milliseconds(now), change_ms, change_pct});
        columns.fit(cells.back());
    }
    out += paint("\x1b[2m", "  " + std::string(22, ' ') + columns.line(head)) + '\n';
    for (std::size_t i = 0; i < std::size(rows); ++i) {
        std::string label = rows[i].first;
        label.resize(22, ' ');
        out += "  " + label + columns.line(cells[i]) + '\n';
    }
    out += "  launches per step: " + thousands(b.launches) + " in base, " +
           thousands(n.launches) + " in new\n";
    return out;
}

} // namespace sdscprov::steps_compared

#include "report/timeline_printers.hpp"

#include "report/profile_format.hpp"

#include <algorithm>
#include <cstdio>

namespace sdscprov::timeline_printers {

using namespace profile_format;

namespace {

std::string paint(bool color, const char* tone, const std::string& s) {
    return color ? std::string(tone) + s + "\x1b[0m" : s;
}

std::string plural(std::uint64_t n, const std::string& one, const std::string& many) {
    return thousands(n) + " " + (n == 1 ? one : many);
}

std::string gb_per_s(std::uint64_t bytes, std::uint64_t ns) {
    if (ns == 0) {
        return "-";
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(bytes) / static_cast<double>(ns));
    return buf;
}

// The step column: as wide as the longest name shown (at most 24 columns, names cut to it).
std::string step_cell(const std::string& name, std::size_t width) {
    std::string cell = fit(printable(name), width, false);
    return "  " + cell + std::string(width > width_of(cell) ? width - width_of(cell) : 0, ' ');
}

// The step table's figures: at least these widths, wider when a figure needs it.
Columns step_columns() {
    return Columns({11, 9, 9, 9, 9, 9, 9, 9, 8});
}

// The columns left out, in turn, while the table is wider than the report: the bandwidth, the
// launches, the transfer time, then the parts of the idle time (the step, its wall time, kernel
// time and idle time always stay).
constexpr std::size_t step_drop_order[] = {8, 7, 2, 6, 5, 4};

std::vector<std::string> step_head() {
    return {"wall (ms)", "kernel",  "transfer", "idle", "wait",
            "latency",   "unattr.", "launches", "GB/s"};
}

std::vector<std::string> step_cells(const StepTimeline& s) {
    return {milliseconds(s.wall_ns),
            milliseconds(s.kernel_busy_ns),
            milliseconds(s.transfer_ns),
            milliseconds(s.idle.ns),
            milliseconds(s.idle.host_wait_ns),
            milliseconds(s.idle.launch_latency_ns),
            milliseconds(s.idle.unattributed_ns),
            thousands(s.launch.launched),
            gb_per_s(s.transfer_bytes, s.transfer_active_ns)};
}

std::string steps_text(const TimelineSummary& t, std::size_t top, std::size_t width,
                       bool color) {
    std::string out;
    std::string title =
        t.step_spans ? "Steps: " + plural(t.steps.size(), "ProfilerStep span", "ProfilerStep spans") +
                           ", slowest first; step time min " + milliseconds(t.step_min_ns) +
                           ", median " + milliseconds(t.step_median_ns) + ", max " +
                           milliseconds(t.step_max_ns) + " ms"
                     : std::string("Steps: no ProfilerStep span in the trace: the whole trace is "
                                   "one step");
    // wrapped, not cut: its end (the slowest step's time) matters most
    std::string lines = wrapped(title, width);
    lines.pop_back();
    out += paint(color, "\x1b[1m", lines) + '\n';
    out += paint(color, "\x1b[2m",
                 fit("(activities in the step of their launch; kernel: busy union; transfer: "
                     "outside kernels; idle: gaps)",
                     width, false)) +
           '\n';
    std::size_t shown = top == 0 ? t.steps.size() : std::min(top, t.steps.size());
    std::size_t name_width = 4;
    for (std::size_t i = 0; i < shown; ++i) {
        name_width = std::max(name_width, std::min<std::size_t>(24, width_of(t.steps[i].name)));
    }
    const std::vector<std::string> head = step_head();
    Columns columns = step_columns();
    columns.fit(head);
    for (std::size_t i = 0; i < shown; ++i) {
        columns.fit(step_cells(t.steps[i]));
    }
    for (std::size_t c : step_drop_order) {
        if (2 + name_width + columns.width() <= width) {
            break;
        }
        columns.drop(c);
    }
    out += paint(color, "\x1b[2m", step_cell("step", name_width) + columns.line(head)) + '\n';
    for (std::size_t i = 0; i < shown; ++i) {
        out += step_cell(t.steps[i].name, name_width) + columns.line(step_cells(t.steps[i])) + '\n';
    }
    if (shown < t.steps.size()) {
        out += "  (" + plural(t.steps.size() - shown, "more step", "more steps") +
               "; --top 0 shows all)\n";
    }
    if (std::string names = columns.left_out(head); !names.empty()) {
        out += "  " + wrapped("(not shown at this width: " + names +
                                  "; --format json has every figure)",
                              width > 2 ? width - 2 : width);
    }
    if (t.step_spans && t.outside_activities > 0) {
        out += "  " + plural(t.outside_activities, "device activity", "device activities") +
               " in no step, with " + milliseconds(t.outside_idle.ns) + " ms of idle gaps\n";
    }
    return out;
}

std::string idle_text(const TimelineSummary& t) {
    const IdleTime& i = t.idle;
    std::string out = "idle: " + milliseconds(i.ns) + " ms in " + plural(i.gaps, "gap", "gaps") +
                      " on " + plural(t.devices, "device", "devices") + ": host wait " +
                      milliseconds(i.host_wait_ns) + " ms (" + percent(i.host_wait_ns, i.ns) +
                      "%), launch latency " + milliseconds(i.launch_latency_ns) + " ms (" +
                      percent(i.launch_latency_ns, i.ns) + "%), unattributed " +
                      milliseconds(i.unattributed_ns) + " ms (" +
                      percent(i.unattributed_ns, i.ns) + "%)";
    out += "; before transfers ([transfers]) " + milliseconds(t.transfers_idle.ns) + " ms";
    if (t.unbundled_idle.ns > 0) {
        out += ", before kernels in no bundle " + milliseconds(t.unbundled_idle.ns) + " ms";
    }
    if (t.out_of_order > 0) {
        out += "; " + plural(t.out_of_order, "activity", "activities") +
               " came too far out of start order: their gaps taken as 0";
    }
    return out;
}

std::string launch_text(const TimelineSummary& t) {
    if (t.launch.launched == 0) {
        return t.launch_events == 0
                   ? std::string("launch delay: not given (no runtime launch event in the trace)")
                   : "launch delay: not given (none of the " +
                         plural(t.launch_events, "runtime event", "runtime events") +
                         " has the args.correlation of a device activity)";
    }
    std::string out = "launch delay: median " + milliseconds(t.launch.median_ns) + " ms over " +
                      plural(t.launch.launched, "launched activity", "launched activities") +
                      " (" + plural(t.launch_events, "runtime event", "runtime events") + ")";
    if (t.launch.skewed > 0) {
        out += "; " + thousands(t.launch.skewed) +
               " started before their launch (clock skew: taken as 0)";
    }
    return out;
}

std::string queue_text(const QueueDelay& q) {
    if (q.kernels == 0) {
        return "queue delay: not given (no kernel event has args.queued and args.submitted)";
    }
    if (!q.consistent()) {
        return "queue delay: not given: args.queued/args.submitted of " +
               thousands(q.inconsistent) + " of " + plural(q.kernels, "kernel", "kernels") +
               " do not fit their ts (not on the trace's clock)";
    }
    return "queue delay: median " + milliseconds(q.median_ns) + " ms over " +
           plural(q.kernels, "kernel", "kernels") + " (start minus args.submitted)";
}

} // namespace

bool shown(const ProfileReport& r, bool asked) {
    return r.ranks.empty() && (r.timeline.shown() || asked);
}

std::string text(const ProfileReport& r, std::size_t top, std::size_t width, bool color) {
    const TimelineSummary& t = r.timeline;
    std::string out = "\n";
    out += steps_text(t, top, width, color);
    for (const auto& sentence : {idle_text(t), launch_text(t), queue_text(t.queue)}) {
        out += wrapped(sentence, width);
    }
    return out;
}

std::string columns_head(bool idle_only) {
    std::string head = pad_left("idle (ms)", 12);
    return idle_only ? head : head + pad_left("wait (ms)", 11) + pad_left("launch (ms)", 12);
}

std::string columns(const IdleTime& idle, const LaunchDelays& launch, bool idle_only) {
    std::string line = cell(milliseconds(idle.ns), 12);
    if (idle_only) {
        return line;
    }
    return line + cell(milliseconds(idle.host_wait_ns), 11) +
           cell(launch.launched > 0 ? milliseconds(launch.median_ns) : std::string("-"), 12);
}

} // namespace sdscprov::timeline_printers

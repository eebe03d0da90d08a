#include "report/span_printers.hpp"

#include "report/profile_format.hpp"

#include <algorithm>

namespace sdscprov::span_printers {

using namespace profile_format;

namespace {

std::string plural(std::uint64_t n, const std::string& one, const std::string& many) {
    return thousands(n) + " " + (n == 1 ? one : many);
}

std::string paint(bool color, const char* tone, const std::string& s) {
    return color ? std::string(tone) + s + "\x1b[0m" : s;
}

// The table's figures: at least these widths, wider when a figure needs it.
Columns span_columns() {
    return Columns({13, 11, 11, 12, 8});
}

std::vector<std::string> span_head() {
    return {"kernel (ms)", "idle (ms)", "wait (ms)", "activities", "spans"};
}

std::vector<std::string> span_cells(const SpanRow& row) {
    return {milliseconds(row.kernel_ns), milliseconds(row.idle.ns),
            milliseconds(row.idle.host_wait_ns), thousands(row.activities),
            thousands(row.occurrences)};
}

std::string row_line(const SpanRow& row, const Columns& columns, std::size_t width) {
    std::string line = columns.line(span_cells(row)) + "  ";
    std::size_t room = width > width_of(line) + 8 ? width - width_of(line) : 8;
    return line + fit(printable(row.name), room, false) + '\n';
}

} // namespace

std::string header_lines(const ProfileReport& r, bool timeline, std::size_t width) {
    const SpanSummary& s = r.spans;
    std::string out;
    if (!shown(r, timeline)) {
        return out;
    }
    if (s.late > 0) {
        out += wrapped(plural(s.late, "host span", "host spans") +
                           " came after activities at or after their start had been counted: "
                           "they may miss some",
                       width);
    }
    if (!s.filter) {
        return out;
    }
    std::string quoted = "--span '" + printable(*s.filter) + "'";
    if (s.matching == 0) {
        out += wrapped(quoted + ": no host span's name matches it (" +
                          plural(s.spans, "host span", "host spans") +
                          " in the trace): no device activity is kept, nothing to report",
                      width);
    } else if (s.kept == 0) {
        out += wrapped(quoted + ": " + plural(s.matching, "host span matches", "host spans match") +
                          ", and no device activity was launched inside one: nothing to report",
                      width);
    } else {
        out += wrapped(quoted + ": " + thousands(s.kept) + " of " +
                          plural(s.seen, "device activity", "device activities") + ", in " +
                          plural(s.matching, "span", "spans") +
                          " matching; every table, the utilization and the timeline cover them "
                          "alone",
                      width);
    }
    return out;
}

std::string comparison_line(const ProfileReport& base, const ProfileReport& now,
                            std::size_t width) {
    if (!now.spans.filter) {
        return {};
    }
    auto kept = [](const SpanSummary& s) {
        return thousands(s.kept) + " of " + thousands(s.seen) + " activities in " +
               plural(s.matching, "span", "spans");
    };
    // indented as the runs' lines above it (wrapped() drops leading spaces)
    return "  " + wrapped("--span '" + printable(*now.spans.filter) + "' in both runs: base " +
                              kept(base.spans) + ", new " + kept(now.spans),
                          width > 2 ? width - 2 : width);
}

std::string text(const ProfileReport& r, bool timeline, std::size_t top, std::size_t width,
                 bool color) {
    const SpanSummary& s = r.spans;
    if (!shown(r, timeline) || s.rows.empty() || s.nothing_kept()) {
        return {};
    }
    std::string out = "\n";
    out += paint(color, "\x1b[1m", fit("Host spans by the device time they launched", width, false)) +
           '\n';
    out += paint(color, "\x1b[2m",
                 fit("(an activity counts for every span holding its launch; idle: the gaps "
                     "before those activities)",
                     width, false)) +
           '\n';
    std::size_t shown = top == 0 ? s.rows.size() : std::min(top, s.rows.size());
    Columns columns = span_columns();
    columns.fit(span_head());
    for (std::size_t i = 0; i < shown; ++i) {
        columns.fit(span_cells(s.rows[i]));
    }
    out += paint(color, "\x1b[2m", columns.line(span_head()) + "  span") + '\n';
    for (std::size_t i = 0; i < shown; ++i) {
        out += row_line(s.rows[i], columns, width);
    }
    if (shown < s.rows.size()) {
        out += "  (" + plural(s.rows.size() - shown, "more span name", "more span names") +
               "; --top 0 shows all)\n";
    }
    return out;
}

} // namespace sdscprov::span_printers

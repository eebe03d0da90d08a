#include "sdscprov/report/profile_printers.hpp"

#include "sdsc/json_out.hpp"
#include "sdscprov/handle/source_text.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace sdscprov {

namespace {

// ---- numbers ------------------------------------------------------------------------------------

std::string thousands(std::uint64_t n) {
    std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            out += ',';
        }
        out += digits[i];
    }
    return out;
}

// Nanoseconds as milliseconds with three decimals (rounded half up), thousands separated.
std::string milliseconds(std::uint64_t ns) {
    std::uint64_t us = ns / 1000 + (ns % 1000 >= 500 ? 1 : 0);
    std::string frac = std::to_string(us % 1000);
    return thousands(us / 1000) + "." + std::string(3 - frac.size(), '0') + frac;
}

// part / whole in percent with one decimal; "-" without a whole.
std::string percent(std::uint64_t part, std::uint64_t whole) {
    if (whole == 0) {
        return "-";
    }
    auto tenths = static_cast<std::uint64_t>(
        (static_cast<long double>(part) * 1000.0L) / static_cast<long double>(whole) + 0.5L);
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
}

// Counter ticks in three significant figures: 987, 12.3k, 4.56M, 7.89G, ...
std::string ticks(std::uint64_t n) {
    static constexpr const char* units[] = {"", "k", "M", "G", "T", "P", "E"};
    if (n < 1000) {
        return std::to_string(n);
    }
    long double v = static_cast<long double>(n);
    std::size_t u = 0;
    while (v >= 999.5L && u + 1 < std::size(units)) {
        v /= 1000.0L;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf,
                  v >= 99.95L   ? "%.0Lf%s"
                  : v >= 9.995L ? "%.1Lf%s"
                                : "%.2Lf%s",
                  v, units[u]);
    return buf;
}

// ---- text ---------------------------------------------------------------------------------------

// Display width of UTF-8 text: code points (East Asian wide characters count one; good enough
// for paths and code).
std::size_t width_of(std::string_view s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
    }));
}

// At most `width` columns of `s`: the start cut off (for paths, whose end matters) or the end.
std::string fit(const std::string& s, std::size_t width, bool keep_end) {
    if (width_of(s) <= width || width < 2) {
        return s;
    }
    const std::string ellipsis = "\xE2\x80\xA6"; // one column
    std::size_t keep = width - 1;
    if (keep_end) {
        std::size_t at = s.size();
        for (std::size_t cols = 0; at > 0 && cols < keep;) {
            --at;
            if ((static_cast<unsigned char>(s[at]) & 0xC0U) != 0x80U) {
                ++cols;
            }
        }
        return ellipsis + s.substr(at);
    }
    std::size_t at = 0;
    for (std::size_t cols = 0; at < s.size();) {
        if ((static_cast<unsigned char>(s[at]) & 0xC0U) != 0x80U) {
            if (cols == keep) {
                break;
            }
            ++cols;
        }
        ++at;
    }
    return s.substr(0, at) + ellipsis;
}

// At most `width` columns of `s`, shortened in the middle: a kernel row's label keeps its start
// (the kernel) and, with more room, its end (the directory or key that tells it apart).
std::string fit_middle(const std::string& s, std::size_t width) {
    if (width_of(s) <= width || width < 5) {
        return fit(s, width, false);
    }
    std::size_t tail = (width - 1) * 2 / 3;
    std::string head = fit(s, width - tail, false); // ends with the ellipsis
    std::string end = fit(s, tail + 1, true);       // starts with it
    return head + end.substr(3);
}

std::string pad_left(const std::string& s, std::size_t width) {
    std::size_t w = width_of(s);
    return w >= width ? s : std::string(width - w, ' ') + s;
}

class TextPrinter {
public:
    TextPrinter(const ProfileReport& r, const ProfileTextOptions& o)
        : r_(r), o_(o), width_(o.shorten ? o.width : std::numeric_limits<std::size_t>::max() / 4) {}

    std::string render() {
        header();
        for (auto ranking : o_.rankings) {
            out_ += '\n';
            switch (ranking) {
            case ProfileRanking::line:
                table("Source lines by device time",
                      "a bundle counts fully for each of its lines: the rows can add up to more "
                      "than 100%",
                      "source line", r_.by_line, "lines", true);
                break;
            case ProfileRanking::aten:
                table("ATen ops by device time",
                      "a bundle counts fully for each of its ops: the rows can add up to more "
                      "than 100%",
                      "ATen op", r_.by_aten, "ops", false);
                break;
            case ProfileRanking::kernel:
                table("Kernels by device time",
                      "one row per compiled bundle; sdscprov explain takes its label", "kernel",
                      r_.by_kernel, "kernels", false);
                break;
            }
        }
        return std::move(out_);
    }

private:
    // `text` as lines of at most width_ columns, broken between words (a word longer than a
    // line is a line of its own), each after `indent` and the next ones two more spaces in.
    std::string wrap(const std::string& text, const std::string& indent) const {
        std::string out;
        std::string line = indent;
        std::size_t start = 0;
        while (start < text.size()) {
            auto end = text.find(' ', start);
            end = end == std::string::npos ? text.size() : end;
            std::string word = text.substr(start, end - start);
            bool first = line.size() == indent.size();
            if (!first && width_of(line) + 1 + width_of(word) > width_) {
                out += line + '\n';
                line = indent + "  " + word;
            } else {
                line += (first ? "" : " ") + word;
            }
            start = end + 1;
        }
        return out + line + '\n';
    }

    std::string paint(const char* tone, const std::string& s) const {
        return o_.color ? std::string(tone) + s + "\x1b[0m" : s;
    }

    void header() {
        const auto& c = r_.coverage;
        out_ += paint("\x1b[1m",
                      fit("sdscprov profile: " + printable(r_.trace) + (r_.gzip ? " (gzip)" : ""),
                          width_, false)) +
                "\n";
        out_ += "kernel events: " + thousands(c.kernel_events) + " of " +
                thousands(c.trace_events) + " trace events, " + milliseconds(c.kernel_ns) +
                " ms of device time\n";
        if (c.kernel_events == 0) {
            out_ += wrap("no device kernel event found in the trace: torch-spyre writes them "
                         "when the profiler records ProfilerActivity.PrivateUse1 "
                         "(torch.profiler.profile(activities=[ProfilerActivity.CPU, "
                         "ProfilerActivity.PrivateUse1]))",
                         "");
        }
        out_ += "paired: " + thousands(c.resolved_events) + " events (" +
                percent(c.resolved_events, c.kernel_events) + "%), " + milliseconds(c.resolved_ns) +
                " ms (" + percent(c.resolved_ns, c.kernel_ns) + "%)\n";
        if (c.dirless_bundles > 0) {
            out_ +=
                wrap("in no kernel directory" +
                         std::string(r_.caches.empty() ? " (no cache read)" : " of the caches") +
                         ": " + thousands(c.dirless_bundles) + " of " +
                         thousands(c.paired_bundles) + " paired bundles, " +
                         thousands(c.dirless_events) + " events, " + milliseconds(c.dirless_ns) +
                         " ms (" + percent(c.dirless_ns, c.kernel_ns) + "%)",
                     "  ");
        }
        std::string through;
        for (const auto& s : r_.sidecars) {
            through += (through.empty() ? "" : ", ") + printable(s);
        }
        std::string caches;
        for (const auto& s : r_.caches) {
            caches += (caches.empty() ? "" : ", ") + printable(s);
        }
        out_ +=
            fit("  sidecars: " + (through.empty() ? std::string("none") : through), width_, false) +
            "\n" +
            fit("  caches: " + (caches.empty() ? std::string("none") : caches), width_, false) +
            "\n";
        if (c.unmeasured_events > 0) {
            out_ += "  " + thousands(c.unmeasured_events) +
                    (c.unmeasured_events == 1 ? " kernel event" : " kernel events") +
                    " without a usable dur: not in the times\n";
        }
        if (o_.stages) {
            std::uint64_t all = 0;
            for (auto t : r_.stages.ticks) {
                all += t;
            }
            out_ += "stages (counter ticks, not seconds):\n ";
            for (std::size_t i = 0; i < stage_count; ++i) {
                out_ += std::string(i == 0 ? " " : ", ") +
                        std::string(to_string(static_cast<Stage>(i))) + " " +
                        ticks(r_.stages.ticks[i]) + " (" + percent(r_.stages.ticks[i], all) + "%)";
            }
            out_ += "; " + thousands(c.counters_failed_events) + " events with failed counters\n";
        }
    }

    void table(const std::string& title, const std::string& note, const std::string& what,
               const std::vector<ProfileRow>& rows, const std::string& plural, bool lines) {
        const bool kernels = &rows == &r_.by_kernel;
        const bool counts_fully = !kernels;
        out_ += paint("\x1b[1m", fit(title, width_, false)) + '\n';
        if (!note.empty()) {
            out_ += paint("\x1b[2m", fit("(" + note + ")", width_, false)) + '\n';
        }
        if (rows.empty()) {
            out_ += "  no kernel events\n";
            return;
        }
        std::string head = pad_left("time (ms)", 13) + pad_left("%", 7) + pad_left("events", 10);
        if (o_.stages) {
            for (std::size_t i = 0; i < stage_count; ++i) {
                head += pad_left(std::string(to_string(static_cast<Stage>(i))), 8);
            }
        }
        head += "  ";
        std::size_t label_width = width_ > head.size() + 12 ? width_ - head.size() : 12;
        out_ += paint("\x1b[2m", head + what) + '\n';
        std::size_t shown = o_.top == 0 ? rows.size() : std::min(o_.top, rows.size());
        for (std::size_t i = 0; i < shown; ++i) {
            const auto& row = rows[i];
            std::string line = pad_left(milliseconds(row.time.ns), 13) +
                               pad_left(percent(row.time.ns, r_.coverage.kernel_ns), 7) +
                               pad_left(thousands(row.time.events), 10);
            if (o_.stages) {
                for (std::size_t s = 0; s < stage_count; ++s) {
                    line += pad_left(row.time.stages.events[s] ? ticks(row.time.stages.ticks[s])
                                                               : std::string("-"),
                                     8);
                }
            }
            std::string label = printable(row.label);
            label = kernels ? fit_middle(label, label_width) : fit(label, label_width, lines);
            out_ += line + "  " + label + '\n';
            if (kernels && row.bundles.size() == 1 && row.bundles[0] < r_.bundles.size()) {
                const auto& dirs = r_.bundles[row.bundles[0]].kernel_dirs;
                for (std::size_t d = 0; dirs.size() > 1 && d < dirs.size(); ++d) {
                    std::string dir =
                        fit(printable(dirs[d]), label_width > 2 ? label_width - 2 : 1, true);
                    out_ += std::string(head.size() + 2, ' ') + paint("\x1b[2m", dir) + '\n';
                }
            }
            if (row.text) {
                std::string text = *row.text;
                auto first = text.find_first_not_of(" \t");
                text = first == std::string::npos ? "" : printable(text.substr(first));
                out_ += std::string(head.size() + 2, ' ') +
                        paint("\x1b[2m", fit(text, label_width > 2 ? label_width - 2 : 1, false)) +
                        '\n';
            }
        }
        if (shown < rows.size()) {
            // Only kernels add up (each event is in one kernel row): the rest's time.
            std::string rest_time;
            if (!counts_fully) {
                DeviceTime rest;
                for (std::size_t i = shown; i < rows.size(); ++i) {
                    rest.add(rows[i].time);
                }
                rest_time = ": " + milliseconds(rest.ns) + " ms";
            }
            out_ += "  (" + thousands(rows.size() - shown) + " more " + plural + rest_time +
                    "; --top 0 shows all)\n";
        }
    }

    const ProfileReport& r_;
    const ProfileTextOptions& o_;
    std::size_t width_; // what labels and paths are shortened to fit
    std::string out_;
};

// ---- JSON ---------------------------------------------------------------------------------------

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void strings(Writer& w, const std::vector<std::string>& items) {
    w.StartArray();
    for (const auto& s : items) {
        json_out::string(w, s);
    }
    w.EndArray();
}

void stages_json(Writer& w, const StageTotals& s) {
    w.StartObject();
    for (std::size_t i = 0; i < stage_count; ++i) {
        json_out::key(w, to_string(static_cast<Stage>(i)));
        w.StartObject();
        json_out::key(w, "ticks");
        w.Uint64(s.ticks[i]);
        json_out::key(w, "events");
        w.Uint64(s.events[i]);
        w.EndObject();
    }
    w.EndObject();
}

void time_json(Writer& w, const DeviceTime& t) {
    json_out::key(w, "device_ns");
    w.Uint64(t.ns);
    json_out::key(w, "events");
    w.Uint64(t.events);
    json_out::key(w, "stages");
    stages_json(w, t.stages);
}

bool is_placeholder(const std::string& label) {
    return label.size() > 1 && label.front() == '[' && label.back() == ']';
}

void rows_json(Writer& w, std::string_view name, const std::vector<ProfileRow>& rows,
               std::string_view field, const std::vector<ProfileBundle>& bundles) {
    json_out::key(w, name);
    w.StartArray();
    for (const auto& row : rows) {
        w.StartObject();
        json_out::key(w, "label");
        json_out::string(w, row.label);
        if (field == "line") {
            json_out::key(w, "file");
            if (row.line) {
                json_out::string(w, row.line->file);
            } else {
                w.Null();
            }
            json_out::key(w, "line");
            if (row.line) {
                w.Int64(row.line->line);
            } else {
                w.Null();
            }
            json_out::key(w, "text");
            json_out::optional_string(w, row.text);
        } else if (field == "aten_op") {
            json_out::key(w, field);
            if (is_placeholder(row.label)) {
                w.Null();
            } else {
                json_out::string(w, row.label);
            }
        }
        if (field == "bundle" && row.bundles.size() == 1 && row.bundles[0] < bundles.size()) {
            const auto& b = bundles[row.bundles[0]];
            json_out::key(w, "key");
            if (b.key.empty()) {
                w.Null();
            } else {
                json_out::string(w, b.key);
            }
            json_out::key(w, "kernels");
            strings(w, b.kernel_names);
            json_out::key(w, "kernel_dirs");
            strings(w, b.kernel_dirs);
        }
        time_json(w, row.time);
        json_out::key(w, "bundles");
        w.StartArray();
        for (auto b : row.bundles) {
            w.Uint(b);
        }
        w.EndArray();
        w.EndObject();
    }
    w.EndArray();
}

std::string folded_frame(std::string_view s) {
    std::string out(s);
    for (auto& c : out) {
        auto u = static_cast<unsigned char>(c);
        if (c == ';') {
            c = ',';
        } else if (u < 0x20 || u == 0x7F) {
            c = '?';
        }
    }
    return out;
}

std::string folded_stack(const ProfileBundle& b) {
    return folded_frame(b.root_label) + ";" + folded_frame(b.aten_label) + ";" +
           folded_frame(b.label);
}

} // namespace

std::string render_profile_text(const ProfileReport& report, const ProfileTextOptions& options) {
    return TextPrinter(report, options).render();
}

std::string render_profile_json(const ProfileReport& r) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.SetIndent(' ', 2);
    w.StartObject();
    json_out::key(w, "sdscprov_profile");
    w.Uint(1);
    json_out::key(w, "trace");
    w.StartObject();
    json_out::key(w, "path");
    json_out::string(w, r.trace);
    json_out::key(w, "gzip");
    w.Bool(r.gzip);
    json_out::key(w, "bytes");
    w.Uint64(r.trace_bytes);
    json_out::key(w, "events");
    w.Uint64(r.coverage.trace_events);
    w.EndObject();
    json_out::key(w, "sidecars");
    strings(w, r.sidecars);
    json_out::key(w, "caches");
    strings(w, r.caches);

    const auto& c = r.coverage;
    json_out::key(w, "coverage");
    w.StartObject();
    json_out::key(w, "kernel_events");
    w.Uint64(c.kernel_events);
    json_out::key(w, "resolved_events");
    w.Uint64(c.resolved_events);
    json_out::key(w, "kernel_ns");
    w.Uint64(c.kernel_ns);
    json_out::key(w, "resolved_ns");
    w.Uint64(c.resolved_ns);
    json_out::key(w, "unmeasured_events");
    w.Uint64(c.unmeasured_events);
    json_out::key(w, "counters_failed_events");
    w.Uint64(c.counters_failed_events);
    json_out::key(w, "paired_bundles");
    w.Uint64(c.paired_bundles);
    json_out::key(w, "dirless_bundles");
    w.Uint64(c.dirless_bundles);
    json_out::key(w, "dirless_events");
    w.Uint64(c.dirless_events);
    json_out::key(w, "dirless_ns");
    w.Uint64(c.dirless_ns);
    w.EndObject();
    json_out::key(w, "stages");
    stages_json(w, r.stages);

    rows_json(w, "by_line", r.by_line, "line", r.bundles);
    rows_json(w, "by_aten", r.by_aten, "aten_op", r.bundles);
    rows_json(w, "by_kernel", r.by_kernel, "bundle", r.bundles);

    json_out::key(w, "bundles");
    w.StartArray();
    for (const auto& b : r.bundles) {
        w.StartObject();
        json_out::key(w, "key");
        if (b.key.empty()) {
            w.Null();
        } else {
            json_out::string(w, b.key);
        }
        json_out::key(w, "label");
        json_out::string(w, b.label);
        json_out::key(w, "event_name");
        json_out::string(w, b.event_name);
        json_out::key(w, "paired_by");
        json_out::string(w, to_string(b.resolution));
        json_out::key(w, "reason");
        if (b.reason) {
            json_out::string(w, to_string(*b.reason));
        } else {
            w.Null();
        }
        json_out::key(w, "handles");
        strings(w, b.handle_ids);
        json_out::key(w, "kernels");
        strings(w, b.kernel_names);
        json_out::key(w, "kernel_dirs");
        strings(w, b.kernel_dirs);
        json_out::key(w, "source_lines");
        w.StartArray();
        for (const auto& l : b.lines) {
            w.StartObject();
            json_out::key(w, "file");
            json_out::string(w, l.file);
            json_out::key(w, "line");
            w.Int64(l.line);
            w.EndObject();
        }
        w.EndArray();
        json_out::key(w, "aten_ops");
        strings(w, b.aten_ops);
        time_json(w, b.time);
        json_out::key(w, "folded");
        json_out::string(w, folded_stack(b));
        w.EndObject();
    }
    w.EndArray();

    json_out::key(w, "handles");
    w.StartArray();
    for (const auto& h : r.handles) {
        json_out::handle(w, h);
    }
    w.EndArray();

    json_out::key(w, "diagnostics");
    w.StartArray();
    for (const auto& d : r.diagnostics) {
        w.StartObject();
        json_out::key(w, "path");
        json_out::string(w, d.path);
        json_out::key(w, "line");
        json_out::position(w, d.pos.line);
        json_out::key(w, "col");
        json_out::position(w, d.pos.col);
        json_out::key(w, "severity");
        json_out::string(w, to_string(d.severity));
        json_out::key(w, "code");
        json_out::string(w, to_string(d.code));
        json_out::key(w, "message");
        json_out::string(w, d.message);
        json_out::key(w, "events");
        w.Uint64(d.events);
        json_out::key(w, "first_event");
        w.Uint64(d.first_event);
        w.EndObject();
    }
    w.EndArray();
    json_out::key(w, "problems");
    w.StartArray();
    for (const auto& p : r.problems) {
        json_out::problem(w, p);
    }
    w.EndArray();
    w.EndObject();
    buffer.Put('\n');
    return {buffer.GetString(), buffer.GetSize()};
}

std::string render_profile_folded(const ProfileReport& r) {
    std::map<std::string, std::uint64_t> stacks;
    for (const auto& b : r.bundles) {
        if (b.time.ns > 0) {
            auto& ns = stacks[folded_stack(b)];
            ns = ns > ~std::uint64_t{0} - b.time.ns ? ~std::uint64_t{0} : ns + b.time.ns;
        }
    }
    std::string out;
    for (const auto& [stack, ns] : stacks) {
        out += stack + " " + std::to_string(ns) + "\n";
    }
    return out;
}

} // namespace sdscprov

#include "sdscprov/report/check_printers.hpp"

#include "report/ci_encoding.hpp"
#include "report/csv_cells.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/core/path.hpp"
#include "walk/shard_json.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace sdscprov {

namespace {

// The check JSON document; with `walk` (a sharded run), each finding's position (`positions`,
// one per finding), each problem's place and the "shard" member.
void write_check_document(std::ostream& out, const std::vector<Finding>& findings,
                          const std::vector<Problem>& problems, std::uint64_t files,
                          const ShardWalk* walk, const std::vector<std::uint64_t>& positions,
                          const std::vector<ProblemPlace>& places) {
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
    w.SetIndent(' ', 2);
    auto string = [&](std::string_view s) { json_out::string(w, s); };
    auto position = [&](const TextPosition& pos) {
        w.Key("line");
        json_out::position(w, pos.line);
        w.Key("col");
        json_out::position(w, pos.col);
    };
    w.StartObject();
    w.Key("sdscprov_check");
    w.Int(1);
    w.Key("files");
    w.Uint64(files);
    w.Key("findings");
    w.StartArray();
    for (std::size_t i = 0; i < findings.size(); ++i) {
        const auto& f = findings[i];
        w.StartObject();
        w.Key("path");
        json_out::path(w, f.path);
        position(f.pos);
        w.Key("rule");
        string(to_string(f.rule));
        w.Key("message");
        string(f.message);
        if (walk) {
            w.Key("position");
            w.Uint64(positions[i]);
        }
        w.EndObject();
    }
    w.EndArray();
    w.Key("problems");
    w.StartArray();
    for (std::size_t i = 0; i < problems.size(); ++i) {
        json_out::problem(w, problems[i], walk ? &places[i] : nullptr);
    }
    w.EndArray();
    if (walk) {
        json_out::shard(w, *walk);
    }
    w.EndObject();
    out.write(buffer.GetString(), static_cast<std::streamsize>(buffer.GetSize()));
    out << '\n';
}

} // namespace

void write_check_json(std::ostream& out, const std::vector<Finding>& findings,
                      const std::vector<Problem>& problems, std::uint64_t files) {
    write_check_document(out, findings, problems, files, nullptr, {}, {});
}

void write_check_json(std::ostream& out, const CheckResult& result, const ShardWalk& walk) {
    std::vector<Finding> findings;
    std::vector<std::uint64_t> positions;
    std::vector<PlacedKernel> placed;
    for (const auto& k : result.kernels) {
        std::uint64_t position = k.position.value_or(0);
        findings.insert(findings.end(), k.findings.begin(), k.findings.end());
        positions.insert(positions.end(), k.findings.size(), position);
        placed.push_back({position, k.problems.size()});
    }
    write_check_document(out, findings, result.problems, result.files(), &walk, positions,
                         place_problems(walk, placed, result.problems.size()));
}

namespace {

using namespace ci_encoding;

std::string_view rule_text(CheckRule r) {
    switch (r) {
    case CheckRule::missing_handle:
        return "SDSC op without debug_handle_";
    case CheckRule::null_handle:
        return "debug_handle_ is null";
    case CheckRule::malformed_handle:
        return "debug_handle_ not of the documented shape (docs/formats.md)";
    case CheckRule::stale_handle:
        return "debug_handle_ differs from the origins map's";
    }
    return "";
}

using Pretty = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

std::string location(const std::string& path, const TextPosition& pos) {
    return quoted_location(path, pos);
}

} // namespace

void write_check_sarif(std::ostream& out, const CheckResult& result) {
    // Rules: the four check rules, then the problem codes that occur, in first-seen order.
    std::vector<std::pair<std::string, std::string>> rules;
    for (auto r : {CheckRule::missing_handle, CheckRule::null_handle, CheckRule::malformed_handle,
                   CheckRule::stale_handle}) {
        rules.emplace_back(std::string(to_string(r)), std::string(rule_text(r)));
    }
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < rules.size(); ++i) {
        index[rules[i].first] = i;
    }
    for (const auto& problem : result.problems) {
        const Problem* p = &problem;
        std::string code(to_string(p->code));
        if (index.emplace(code, rules.size()).second) {
            rules.emplace_back(code, "sdscprov problem: " + code);
        }
    }
    rapidjson::StringBuffer buffer;
    Pretty w(buffer);
    ci_encoding::sarif_open(w, rules);
    for (const auto& k : result.kernels) {
        for (const auto& f : k.findings) {
            std::string rule(to_string(f.rule));
            sarif_result(w, rule, index[rule], "error", f.message, f.path, f.pos);
        }
    }
    for (const auto& p : result.problems) {
        std::string code(to_string(p.code));
        sarif_result(w, code, index[code], p.severity == Severity::error ? "error" : "warning",
                     p.message, p.path, p.pos);
    }
    ci_encoding::sarif_close(w);
    out.write(buffer.GetString(), static_cast<std::streamsize>(buffer.GetSize()));
    out << '\n';
}

void write_check_github(std::ostream& out, const CheckResult& result) {
    for (const auto& k : result.kernels) {
        for (const auto& f : k.findings) {
            github_line(out, "error", f.path, f.pos, "sdscprov " + std::string(to_string(f.rule)),
                        f.message);
        }
    }
    for (const auto& p : result.problems) {
        github_line(out, p.severity == Severity::error ? "error" : "warning", p.path, p.pos,
                    "sdscprov " + std::string(to_string(p.code)), p.message);
    }
}

void write_check_markdown_summary(std::ostream& out, const CheckResult& result,
                                  std::size_t max_rows) {
    std::map<std::string, std::size_t> per_rule;
    for (const auto& k : result.kernels) {
        for (const auto& f : k.findings) {
            ++per_rule[std::string(to_string(f.rule))];
        }
    }
    out << "## sdscprov check\n\n"
        << result.findings() << " finding" << (result.findings() == 1 ? "" : "s") << " in "
        << result.files() << " SDSC file" << (result.files() == 1 ? "" : "s") << ", "
        << result.problems.size() << " problem" << (result.problems.size() == 1 ? "" : "s")
        << ".\n\n";
    if (!per_rule.empty()) {
        out << "| rule | findings |\n|---|---|\n";
        for (const auto& [rule, n] : per_rule) {
            out << "| `" << rule << "` | " << n << " |\n";
        }
        out << '\n';
    }
    std::size_t rows = 0;
    for (const auto& k : result.kernels) {
        for (const auto& f : k.findings) {
            if (rows++ == max_rows) {
                out << "- ... and " << (result.findings() - max_rows) << " more\n";
                return;
            }
            out << "- " << markdown_code(location(f.path, f.pos)) << ": "
                << markdown_code(f.message) << '\n';
        }
    }
}

void write_check_junit(std::ostream& out, const CheckResult& result) {
    std::size_t failures = 0;
    std::size_t errors = 0;
    for (const auto& k : result.kernels) {
        failures += k.findings.empty() ? 0 : 1;
        errors += k.problems.empty() ? 0 : 1;
    }
    // Problems that belong to no kernel directory (the walk's, the origins maps'): every problem
    // of the run less those of the kernels, counted, in order. One more test case holds them.
    std::map<std::string, std::size_t> of_kernels;
    auto key = [](const Problem& p) {
        return location(p.path, p.pos) + '\0' + std::string(to_string(p.code)) + '\0' + p.message;
    };
    for (const auto& k : result.kernels) {
        for (const auto& p : k.problems) {
            ++of_kernels[key(p)];
        }
    }
    std::vector<const Problem*> others;
    for (const auto& p : result.problems) {
        auto it = of_kernels.find(key(p));
        if (it != of_kernels.end() && it->second > 0) {
            --it->second;
        } else {
            others.push_back(&p);
        }
    }
    std::size_t tests = result.kernels.size() + (others.empty() ? 0 : 1);
    errors += others.empty() ? 0 : 1;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<testsuites name=\"sdscprov check\" tests=\"" << tests << "\" failures=\"" << failures
        << "\" errors=\"" << errors << "\">\n"
        << "  <testsuite name=\"sdscprov check\" tests=\"" << tests << "\" failures=\"" << failures
        << "\" errors=\"" << errors << "\">\n";
    for (const auto& k : result.kernels) {
        out << "    <testcase classname=\"sdscprov.check\" name=\""
            << xml_escaped(quote_path(k.dir)) << "\"";
        if (k.findings.empty() && k.problems.empty()) {
            out << "/>\n";
            continue;
        }
        out << ">\n";
        if (!k.findings.empty()) {
            out << "      <failure message=\"" << k.findings.size() << " of " << k.files
                << " SDSC files lack provenance\" type=\"" << to_string(k.findings.front().rule)
                << "\">";
            for (const auto& f : k.findings) {
                out << xml_escaped(location(f.path, f.pos) + ": " + f.message + " [" +
                                   std::string(to_string(f.rule)) + "]")
                    << '\n';
            }
            out << "</failure>\n";
        }
        if (!k.problems.empty()) {
            out << "      <error message=\"" << k.problems.size() << " file problem"
                << (k.problems.size() == 1 ? "" : "s") << "\">";
            for (const auto& p : k.problems) {
                out << xml_escaped(location(p.path, p.pos) + ": " + p.message + " [" +
                                   std::string(to_string(p.code)) + "]")
                    << '\n';
            }
            out << "</error>\n";
        }
        out << "    </testcase>\n";
    }
    if (!others.empty()) {
        out << "    <testcase classname=\"sdscprov.check\" name=\"(inputs)\">\n"
            << "      <error message=\"" << others.size() << " problem"
            << (others.size() == 1 ? "" : "s") << "\">";
        for (const auto* p : others) {
            out << xml_escaped(location(p->path, p->pos) + ": " + p->message + " [" +
                               std::string(to_string(p->code)) + "]")
                << '\n';
        }
        out << "</error>\n    </testcase>\n";
    }
    out << "  </testsuite>\n</testsuites>\n";
}

// ---- text ---------------------------------------------------------------------------------------

CheckTextPrinter::CheckTextPrinter(std::ostream& out, bool color, bool all, std::size_t width)
    : out_(out), color_(color), all_(all), width_(width) {}

void CheckTextPrinter::print(const Finding& f) {
    std::string where = quoted_location(f.path, f.pos) + ':';
    std::string rule = "[" + std::string(to_string(f.rule)) + "]";
    if (color_) { // the location bold, the rule yellow, as compilers show warnings
        where = "\x1b[1m" + where + "\x1b[0m";
        rule = "\x1b[33m" + rule + "\x1b[0m";
    }
    out_ << where << ' ' << printable_text(f.message) << ' ' << rule << '\n';
}

void CheckTextPrinter::kernel(const CheckedKernel& k, const std::optional<std::string>& name) {
    if (all_) {
        for (const auto& f : k.findings) {
            print(f);
        }
        return;
    }
    if (!k.findings.empty()) {
        std::string key = name ? *name : std::string(file_name_of(k.dir));
        Counts& c = groups_[key];
        ++c.dirs;
        c.findings += k.findings.size();
        for (const auto& f : k.findings) {
            ++c.by_rule[static_cast<int>(f.rule)];
        }
    }
    if (grouped_) {
        return;
    }
    held_.insert(held_.end(), k.findings.begin(), k.findings.end());
    if (held_.size() > max_lines) {
        grouped_ = true;
        held_.clear();
        held_.shrink_to_fit();
    }
}

void CheckTextPrinter::finish() {
    if (!grouped_) {
        for (const auto& f : held_) {
            print(f);
        }
        return;
    }
    std::vector<std::pair<const std::string*, const Counts*>> rows;
    for (const auto& [name, c] : groups_) {
        rows.emplace_back(&name, &c);
    }
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
        return a.second->findings != b.second->findings ? a.second->findings > b.second->findings
                                                        : *a.first < *b.first;
    });
    std::uint64_t dirs = 0;
    for (const auto& r : rows) {
        dirs += r.second->dirs;
    }
    std::uint64_t findings = 0;
    for (const auto& r : rows) {
        findings += r.second->findings;
    }
    // The words of scan's report (docs/formats.md): kernels, and their directories that need
    // attention.
    std::string title = std::to_string(rows.size()) + " kernel" + (rows.size() == 1 ? "" : "s") +
                        " (" + std::to_string(dirs) + (dirs == 1 ? " directory" : " directories") +
                        ") " + (rows.size() == 1 ? "needs" : "need") +
                        " attention: " + std::to_string(findings) + " finding" +
                        (findings == 1 ? "" : "s") + ", the most first";
    out_ << (color_ ? "\x1b[1m" + title + "\x1b[0m" : title) << '\n';
    const std::string header = "findings   dirs  missing   null  malformed  stale  kernel";
    out_ << (color_ ? "\x1b[1m" + header + "\x1b[0m" : header) << '\n';
    std::size_t shown = std::min(rows.size(), max_rows);
    for (std::size_t i = 0; i < shown; ++i) {
        const Counts& c = *rows[i].second;
        auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
        char numbers[96];
        int n = std::snprintf(numbers, sizeof numbers, "%8llu  %5llu  %7llu  %5llu  %9llu  %5llu  ",
                              u(c.findings), u(c.dirs), u(c.by_rule[0]), u(c.by_rule[1]),
                              u(c.by_rule[2]), u(c.by_rule[3]));
        std::size_t used = static_cast<std::size_t>(n);
        out_ << numbers
             << shorten_middle(printable_text(*rows[i].first),
                               width_ > used + 10 ? width_ - used : 10)
             << '\n';
    }
    if (rows.size() > shown) {
        out_ << "\xE2\x80\xA6 " << rows.size() - shown << " more (--all lists every finding)\n";
    }
}

} // namespace sdscprov

// ---- the printers of a check run ----------------------------------------------------------------

namespace sdscprov {

namespace {

// What every format of check closes with: one line of counts for people.
class CheckPrinterBase : public Printer<CheckItem, CheckEnd> {
public:
    explicit CheckPrinterBase(std::ostream& diagnostics) : diagnostics_(diagnostics) {}

    void summary(const CheckEnd& run) override {
        const CheckTally& t = run.tally;
        auto counted = [](std::uint64_t k, std::uint64_t d) {
            return std::to_string(k) + (k == 1 ? " kernel (" : " kernels (") + std::to_string(d) +
                   (d == 1 ? " directory)" : " directories)");
        };
        diagnostics_ << "sdscprov check: " << t.findings << " finding"
                     << (t.findings == 1 ? "" : "s") << " in " << t.files << " SDSC file"
                     << (t.files == 1 ? "" : "s") << "; "
                     << counted(t.kernels_found.size(), t.dirs_found)
                     << (t.kernels_found.size() == 1 ? " needs" : " need") << " attention, of "
                     << counted(t.kernels.size(), t.dirs) << '\n';
    }

protected:
    std::ostream& diagnostics_;
};

class CheckText final : public CheckPrinterBase {
public:
    CheckText(std::ostream& out, std::ostream& diagnostics, const PrinterOptions& o)
        : CheckPrinterBase(diagnostics), text_(out, o.color, o.all, o.width) {}
    void item(const CheckItem& k) override { text_.kernel(k.checked, k.report.dir.kernel); }
    void end(const CheckEnd&) override { text_.finish(); }

private:
    CheckTextPrinter text_;
};

// The page of scan, with the findings (report/html.hpp).
class CheckPage final : public CheckPrinterBase {
public:
    CheckPage(std::ostream& out, std::ostream& diagnostics, PrinterOptions o)
        : CheckPrinterBase(diagnostics),
          page_(make_printer(ReportFormat::html, out, std::move(o))) {}
    void item(const CheckItem& k) override { page_->kernel(k.report); }
    void end(const CheckEnd& run) override { page_->finish(run.totals, run.problems); }

private:
    std::unique_ptr<ReportPrinter> page_;
};

// csv: the header, then each kernel's findings as it comes (path, line, col, rule, message: the
// JSON report's members), in flat memory.
class CheckCsv final : public CheckPrinterBase {
public:
    CheckCsv(std::ostream& out, std::ostream& diagnostics)
        : CheckPrinterBase(diagnostics), out_(out) {
        std::string head;
        csv::header(head, std::array<std::string_view, 5>{"path", "line", "col", "rule", "message"});
        out_ << head;
    }
    void item(const CheckItem& k) override {
        std::string rows;
        for (const Finding& f : k.checked.findings) {
            csv::Record rec(rows);
            rec.text(f.path);
            for (std::size_t v : {f.pos.line, f.pos.col}) {
                if (v == 0) {
                    rec.none();
                } else {
                    rec.number(static_cast<std::uint64_t>(v));
                }
            }
            rec.text(to_string(f.rule)).text(f.message).end();
        }
        out_ << rows;
    }
    void end(const CheckEnd&) override { out_.flush(); }

private:
    std::ostream& out_;
};

// json, sarif, github and junit: the kernels' checks kept, the document written at the end.
class CheckDocument final : public CheckPrinterBase {
public:
    CheckDocument(ReportFormat format, std::ostream& out, std::ostream& diagnostics,
                  std::string step_summary)
        : CheckPrinterBase(diagnostics), format_(format), out_(out),
          step_summary_(std::move(step_summary)) {}
    void item(const CheckItem& k) override { kept_.kernels.push_back(std::move(k.checked)); }
    void end(const CheckEnd& run) override {
        kept_.problems = run.problems;
        if (format_ == ReportFormat::json && run.totals.shard) {
            write_check_json(out_, kept_, *run.totals.shard);
        } else if (format_ == ReportFormat::json) {
            std::vector<Finding> all;
            for (const auto& k : kept_.kernels) {
                all.insert(all.end(), k.findings.begin(), k.findings.end());
            }
            write_check_json(out_, all, kept_.problems, kept_.files());
        } else if (format_ == ReportFormat::sarif) {
            write_check_sarif(out_, kept_);
        } else if (format_ == ReportFormat::junit) {
            write_check_junit(out_, kept_);
        } else {
            write_check_github(out_, kept_);
            append_step_summary();
        }
    }

private:
    void append_step_summary() {
        if (step_summary_.empty()) {
            return;
        }
        std::ofstream summary(step_summary_, std::ios::app);
        write_check_markdown_summary(summary, kept_);
        if (!summary) {
            diagnostics_ << "sdscprov: cannot append to $GITHUB_STEP_SUMMARY (" << step_summary_
                         << ")\n";
        }
    }

    ReportFormat format_;
    std::ostream& out_;
    std::string step_summary_;
    CheckResult kept_;
};

} // namespace

std::unique_ptr<Printer<CheckItem, CheckEnd>> make_check_printer(ReportFormat format,
                                                                 std::ostream& out,
                                                                 std::ostream& diagnostics,
                                                                 CheckPrinterOptions options) {
    switch (format) {
    case ReportFormat::html:
        return std::make_unique<CheckPage>(out, diagnostics, std::move(options.report));
    case ReportFormat::csv:
        return std::make_unique<CheckCsv>(out, diagnostics);
    case ReportFormat::json:
    case ReportFormat::sarif:
    case ReportFormat::github:
    case ReportFormat::junit:
        return std::make_unique<CheckDocument>(format, out, diagnostics,
                                               std::move(options.step_summary));
    default:
        return std::make_unique<CheckText>(out, diagnostics, options.report);
    }
}

} // namespace sdscprov

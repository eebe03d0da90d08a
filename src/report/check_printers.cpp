#include "sdscprov/report/check_printers.hpp"

#include "report/check_documents.hpp"

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
        w.Key("severity");
        string(to_string(f.severity));
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
    case CheckRule::compiler_generated:
        return "op created by the compiler with no model source (a note unless --strict)";
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
                   CheckRule::stale_handle, CheckRule::compiler_generated}) {
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
            sarif_result(w, rule, index[rule], f.fails() ? "error" : "note", f.message, f.path,
                         f.pos);
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
            github_line(out, f.fails() ? "error" : "notice", f.path, f.pos,
                        "sdscprov " + std::string(to_string(f.rule)), f.message);
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
        << (result.notes() > 0 ? std::to_string(result.notes()) +
                                       (result.notes() == 1 ? " note, " : " notes, ")
                                 : std::string())
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
                out << "- ... and " << (result.findings() + result.notes() - max_rows)
                    << " more\n";
                return;
            }
            out << "- " << markdown_code(location(f.path, f.pos)) << ": "
                << markdown_code(f.message) << '\n';
        }
    }
}

namespace {

// One kernel directory's JUnit test case: failed with the findings that fail the gate, its notes
// in <system-out>, in error with its problems.
void junit_test_case(std::ostream& out, const CheckedKernel& k) {
    out << "    <testcase classname=\"sdscprov.check\" name=\""
        << xml_escaped(quote_path(k.dir)) << "\"";
    if (k.findings.empty() && k.problems.empty()) {
        out << "/>\n";
        return;
    }
    out << ">\n";
    auto finding_lines = [&](bool failing) {
        for (const auto& f : k.findings) {
            if (f.fails() == failing) {
                out << xml_escaped(location(f.path, f.pos) + ": " + f.message + " [" +
                                   std::string(to_string(f.rule)) + "]")
                    << '\n';
            }
        }
    };
    if (const std::uint64_t failing = k.failures(); failing > 0) {
        const auto first = std::find_if(k.findings.begin(), k.findings.end(),
                                        [](const Finding& f) { return f.fails(); });
        out << "      <failure message=\"" << failing << " of " << k.files
            << " SDSC files lack provenance\" type=\"" << to_string(first->rule) << "\">";
        finding_lines(true);
        out << "</failure>\n";
    }
    if (k.failures() < k.findings.size()) {
        out << "      <system-out>";
        finding_lines(false);
        out << "</system-out>\n";
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

} // namespace

void write_check_junit(std::ostream& out, const CheckResult& result) {
    std::size_t failures = 0;
    std::size_t errors = 0;
    for (const auto& k : result.kernels) {
        failures += k.failures() == 0 ? 0 : 1;
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
        junit_test_case(out, k);
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

} // namespace sdscprov

// ---- the printers of a check run ----------------------------------------------------------------

namespace sdscprov {

namespace {

// What every format of check closes with: one line of counts for people.
class CheckPrinterBase : public Printer<CheckItem, CheckEnd> {
public:
    CheckPrinterBase(std::ostream& diagnostics, const CheckOptions& check)
        : diagnostics_(diagnostics), check_(check) {}

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
        if (t.notes > 0) {
            diagnostics_ << "sdscprov check: " << t.notes << " compiler-generated op"
                         << (t.notes == 1 ? "" : "s")
                         << " without a handle (no model source by design): notes, not "
                            "failures (--strict fails on them)\n";
        }
        if (t.foreign_dirs > 0) {
            diagnostics_ << "sdscprov check: " << counted(t.foreign_kernels.size(), t.foreign_dirs)
                         << " not from this compile (not in the origins map), not judged: "
                         << foreign_names(t) << " (--all-kernels judges them)\n";
        }
        diagnostics_ << "sdscprov check: a populated debug_handle_ in "
                     << share_text(t.populated, t.ops) << " % of " << t.ops << " judged SDSC op"
                     << (t.ops == 1 ? "" : "s");
        if (check_.fail_under) {
            diagnostics_ << " (--fail-under " << fail_under_text() << ": "
                         << (t.fails(check_) ? "fails" : "passes") << ")";
        }
        diagnostics_ << '\n';
    }

protected:
    std::ostream& diagnostics_;

private:
    static constexpr std::size_t names_shown = 5;

    // The first kernel names (in name order), then how many more.
    static std::string foreign_names(const CheckTally& t) {
        std::string out;
        std::size_t n = 0;
        for (const auto& name : t.foreign_kernels) {
            if (n++ == names_shown) {
                out += ", ... and ";
                out += std::to_string(t.foreign_kernels.size() - names_shown);
                out += " more";
                break;
            }
            out += (out.empty() ? "" : ", ") + printable_text(name);
        }
        return out;
    }

    // The threshold as given (a whole number without its ".0").
    std::string fail_under_text() const {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", *check_.fail_under);
        return buf;
    }

    CheckOptions check_;
};

// text: one `path:line:col: message [rule]` line per finding that fails the gate, as a compiler
// gives them, streamed as the kernel directories come; notes are counted by the closing lines, not
// listed. With a cap, at most `cap` lines and then "... and N more (--all)".
class CheckText final : public CheckPrinterBase {
public:
    static constexpr std::size_t terminal_lines = 40;

    CheckText(std::ostream& out, std::ostream& diagnostics, const CheckPrinterOptions& o)
        : CheckPrinterBase(diagnostics, o.report.check), out_(out), color_(o.report.color),
          cap_(o.cap_lines ? terminal_lines : 0) {}

    void item(const CheckItem& k) override {
        for (const auto& f : k.checked.findings) {
            if (!f.fails()) {
                continue;
            }
            if (cap_ == 0 || printed_ < cap_) {
                print(f);
                ++printed_;
            } else {
                ++more_;
            }
        }
    }

    void end(const CheckEnd&) override {
        if (more_ > 0) {
            out_ << "... and " << more_ << " more (--all)\n";
        }
    }

private:
    void print(const Finding& f) {
        std::string where = quoted_location(f.path, f.pos) + ':';
        std::string rule = "[";
        rule += to_string(f.rule);
        rule += ']';
        if (color_) { // the location bold, the rule yellow, as compilers show warnings
            where = "\x1b[1m" + where + "\x1b[0m";
            rule = "\x1b[33m" + rule + "\x1b[0m";
        }
        out_ << where << ' ' << printable_text(f.message) << ' ' << rule << '\n';
    }

    std::ostream& out_;
    bool color_;
    std::size_t cap_;
    std::size_t printed_ = 0;
    std::uint64_t more_ = 0;
};

// The page of scan, with the findings (report/html.hpp).
class CheckPage final : public CheckPrinterBase {
public:
    CheckPage(std::ostream& out, std::ostream& diagnostics, PrinterOptions o,
              const CheckOptions& check)
        : CheckPrinterBase(diagnostics, check),
          page_(make_printer(ReportFormat::html, out, std::move(o))) {}
    void item(const CheckItem& k) override { page_->item(k.report); }
    void end(const CheckEnd& run) override { page_->end({run.totals, run.problems}); }

private:
    std::unique_ptr<ReportPrinter> page_;
};

// csv: the header, then each kernel's findings as it comes (path, line, col, rule, severity, message: the
// JSON report's members), in flat memory.
class CheckCsv final : public CheckPrinterBase {
public:
    CheckCsv(std::ostream& out, std::ostream& diagnostics, const CheckOptions& check)
        : CheckPrinterBase(diagnostics, check), out_(out) {
        std::string head;
        csv::header(head, std::array<std::string_view, 6>{"path", "line", "col", "rule", "severity",
                                                          "message"});
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
            rec.text(to_string(f.rule)).text(to_string(f.severity)).text(f.message).end();
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
                  std::string step_summary, const CheckOptions& check)
        : CheckPrinterBase(diagnostics, check), format_(format), out_(out),
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
        return std::make_unique<CheckPage>(out, diagnostics, options.report,
                                           options.report.check);
    case ReportFormat::csv:
        return std::make_unique<CheckCsv>(out, diagnostics, options.report.check);
    case ReportFormat::json:
    case ReportFormat::sarif:
    case ReportFormat::github:
    case ReportFormat::junit:
        return std::make_unique<CheckDocument>(format, out, diagnostics,
                                               std::move(options.step_summary),
                                               options.report.check);
    default:
        return std::make_unique<CheckText>(out, diagnostics, options);
    }
}

} // namespace sdscprov

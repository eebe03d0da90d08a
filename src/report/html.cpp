// What scan, annotate, check and explain put in the HTML page (html_model.hpp): their kernel
// directories with the figures the page ranks them by, the totals, and check's verdict.
#include "sdscprov/report/html.hpp"

#include "report/html_model.hpp"
#include "report/printer_parts.hpp"
#include "sdscprov/commands/check.hpp"

#include <ostream>
#include <set>

namespace sdscprov {

namespace {

using report_parts::plural;

// A file's path in its kernel directory's row: the part below the directory.
std::string below(const std::string& dir, const std::string& path) {
    if (path.size() > dir.size() + 1 && path.compare(0, dir.size(), dir) == 0 &&
        path[dir.size()] == '/') {
        return path.substr(dir.size() + 1);
    }
    return path;
}

std::string_view state_name(const ScanResult& s) {
    return s.status == FileStatus::ok ? to_string(s.handle_state) : to_string(s.status);
}

void add_to_bar(HandleBar& bar, std::string_view state) {
    if (state == "populated") {
        ++bar.populated;
    } else if (state == "null") {
        ++bar.null;
    } else if (state == "absent") {
        ++bar.absent;
    } else if (state == "malformed") {
        ++bar.malformed;
    }
}

void add_problem(HtmlKernel& row, Severity s) {
    row.errors += s == Severity::error ? 1 : 0;
    row.problems += s == Severity::note ? 0 : 1;
}

// The figures "worst first" sorts a directory by, as the text report's "Needs attention" does:
// its errors, its files that lack provenance (after the run, for annotate), its problems.
void rank(HtmlKernel& row, const KernelReport& k) {
    const FileStateCounts& c = k.counts;
    row.errors = c.errors;
    row.problems = c.errors + c.warnings;
    for (const auto& p : k.problems) {
        add_problem(row, p.severity);
    }
    if (k.rewrite) {
        RewriteCounts a;
        a.add(k);
        row.lacking = a.lacking + a.differs;
    } else {
        row.lacking = c.null + c.absent + c.malformed + c.not_sdsc + c.invalid_json + c.unreadable;
    }
}

class HtmlPrinter final : public ReportPrinter {
public:
    HtmlPrinter(std::ostream& out, PrinterOptions options)
        : out_(out), options_(std::move(options)),
          model_(std::string(to_string(options_.command)),
                 "sdscprov " + std::string(to_string(options_.command)), options_.source_text) {}

    void item(const KernelReport& k) override {
        // A kernel is a kernel name, a directory without one a kernel of its own (docs/formats.md).
        names_.insert(k.dir.kernel ? *k.dir.kernel : std::string(file_name_of(k.dir.path)));
        HtmlKernel row;
        row.name = k.dir.kernel.value_or(k.dir.path);
        row.dir = k.dir.path;
        row.next = k.dir.path;
        row.files = k.files.size();
        rank(row, k);
        std::vector<HtmlOp> ops(k.files.size());
        for (std::size_t i = 0; i < k.files.size(); ++i) {
            const ScanResult& s = k.files[i];
            HtmlOp& op = ops[i];
            op.file = below(k.dir.path, s.file.path);
            op.key = s.op_key;
            op.state = state_name(s);
            op.handle = s.handle ? &*s.handle : nullptr;
            if (compiler_generated(k, i) != GeneratedForm::none) {
                op.notes.push_back("compiler-generated: the compiler created this op with no "
                                   "model source (no source by design)");
                ++generated_;
            }
        }
        if (k.rewrite) {
            annotated(row, ops, *k.rewrite);
        }
        if (options_.command == ReportCommand::check) {
            findings(row, ops, k);
        }
        for (const auto& op : ops) {
            add_to_bar(row.bar, op.state);
            add_to_bar(after_, op.state);
        }
        model_.kernel(row, ops);
    }

    void end(const RunEnd& run) override {
        const Totals& totals = run.totals;
        const std::vector<Problem>& problems = run.problems;
        const FileStateCounts& c = totals.counts;
        const bool after = options_.command == ReportCommand::annotate;
        model_.summary("kernels", std::to_string(names_.size()));
        model_.summary("kernel directories", std::to_string(totals.kernels));
        model_.summary("SDSC files", std::to_string(c.sdsc_documents()));
        model_.summary(after ? "populated (after)" : "populated", std::to_string(after_.populated));
        model_.summary("null", std::to_string(after_.null));
        model_.summary("absent", std::to_string(after_.absent));
        model_.summary("malformed", std::to_string(after_.malformed));
        model_.summary("compiler-generated", std::to_string(generated_));
        if (after) {
            const RewriteCounts& a = totals.rewrites;
            model_.summary(options_.dry_run ? "would change" : "changed",
                           std::to_string(a.changes()));
            model_.summary("kept", std::to_string(a.kept));
            model_.summary("differs", std::to_string(a.differs));
            model_.summary("lacking", std::to_string(a.lacking));
            annotate_verdict(a);
        }
        model_.summary("errors", std::to_string(c.errors));
        model_.summary("warnings", std::to_string(c.warnings));
        model_.coverage(c.sdsc_documents(), c.provenance);
        if (options_.command == ReportCommand::check) {
            check_verdict(totals, problems);
        }
        for (const auto& p : problems) {
            model_.problem(p);
        }
        write_html_page(out_, model_.title(), model_.json());
    }

private:
    // The state after the run, and what annotate did with each file.
    static void annotated(HtmlKernel& row, std::vector<HtmlOp>& ops, const KernelRewrite& a) {
        if (a.join) {
            row.note = std::string(to_string(a.join->match));
            if (!a.join->detail.empty()) {
                row.note += ": " + a.join->detail;
            }
        }
        for (std::size_t i = 0; i < a.files.size() && i < ops.size(); ++i) {
            const FileOutcome& f = a.files[i];
            if (a.provided(i) && f.handle) {
                ops[i].state = "populated";
                ops[i].handle = &*f.handle;
            }
            std::string note(to_string(f.action));
            if (!f.detail.empty()) {
                note += ": " + f.detail;
            }
            ops[i].notes.push_back(std::move(note));
        }
    }

    // check's findings: in the problems list, on their files, and what the directory ranks by.
    void findings(HtmlKernel& row, std::vector<HtmlOp>& ops, const KernelReport& k) {
        for (const auto& f : check_kernel(k, options_.check)) {
            if (!f.fails()) {
                model_.listed(f.path, f.pos, "note", to_string(f.rule), f.message);
                continue;
            }
            model_.listed(f.path, f.pos, "finding", to_string(f.rule), f.message);
            ++row.findings;
            for (std::size_t i = 0; i < ops.size(); ++i) {
                if (k.files[i].file.path == f.path) {
                    ops[i].notes.push_back(std::string(to_string(f.rule)) + ": " + f.message);
                }
            }
        }
        row.lacking = row.findings;
        findings_ += row.findings;
        dirs_with_findings_ += row.findings > 0 ? 1 : 0;
    }

    // Pass or fail, as check's exit status says it: errors (bad input), findings, or neither.
    void check_verdict(const Totals& totals, const std::vector<Problem>& problems) {
        std::uint64_t errors = 0;
        for (const auto& p : problems) {
            errors += p.severity == Severity::error ? 1 : 0;
        }
        const std::string files = plural(totals.counts.files, "SDSC file");
        std::string found =
            plural(findings_, "finding") + " in " + std::to_string(dirs_with_findings_) + " of " +
            plural(totals.kernels, "kernel director", "y", "ies") + " (" + files + ")";
        if (errors > 0) {
            model_.verdict("fail", "check failed: " + plural(errors, "error") +
                                       " (bad input, see the problems); " + found);
        } else if (findings_ > 0) {
            model_.verdict("fail", "check failed: " + found);
        } else {
            model_.verdict("pass", "check passed: no findings in " + files);
        }
    }

    void annotate_verdict(const RewriteCounts& a) {
        if (options_.dry_run) {
            model_.verdict("note", "dry run: nothing was written; " + plural(a.changes(), "file") +
                                       " would change, and the page shows the files as a run "
                                       "would leave them");
        } else {
            model_.verdict("note", "written: " + plural(a.written, "file") + "; " +
                                       plural(a.lacking, "file") + " still lacking provenance");
        }
    }

    std::ostream& out_;
    PrinterOptions options_;
    std::uint64_t generated_ = 0; // compiler-generated ops
    HtmlModel model_;
    std::set<std::string> names_; // the kernels: kernel names (a directory without one by its own)
    HandleBar after_;
    std::uint64_t findings_ = 0;
    std::uint64_t dirs_with_findings_ = 0;
};

// One kernel directory explain resolved.
HtmlKernel explained(const ExplainKernel& k, std::vector<HtmlOp>& ops) {
    HtmlKernel row;
    row.name = k.kernel.value_or(k.dir);
    row.dir = k.dir;
    row.next = k.dir;
    row.files = k.ops.size();
    row.pre_grad_nodes = k.pre_grad_nodes;
    row.post_grad_nodes = k.post_grad_nodes;
    for (const auto& t : k.stack_traces) {
        row.stack_traces.emplace_back(t.trace, t.source);
    }
    for (const auto& op : k.ops) {
        HtmlOp o;
        o.file = below(k.dir, op.file);
        o.key = op.op_key;
        o.state = op.status == FileStatus::ok ? std::string(to_string(op.handle_state))
                                              : std::string(to_string(op.status));
        o.handle = op.handle ? &*op.handle : nullptr;
        add_to_bar(row.bar, o.state);
        for (const auto& p : op.problems) {
            add_problem(row, p.severity);
        }
        ops.push_back(std::move(o));
    }
    row.lacking = row.files - row.bar.populated;
    return row;
}

} // namespace

std::unique_ptr<ReportPrinter> make_html_printer(std::ostream& out, PrinterOptions options) {
    return std::make_unique<HtmlPrinter>(out, std::move(options));
}

void print_explain_html(std::ostream& out, const std::vector<ExplainKernel>& kernels,
                        const std::vector<Problem>& problems,
                        const SourceTextOptions& source_text) {
    HtmlModel model("explain", "sdscprov explain", source_text);
    HandleBar all;
    std::uint64_t files = 0;
    for (const auto& k : kernels) {
        std::vector<HtmlOp> ops;
        HtmlKernel row = explained(k, ops);
        files += row.files;
        all.populated += row.bar.populated;
        all.null += row.bar.null;
        all.absent += row.bar.absent;
        all.malformed += row.bar.malformed;
        model.kernel(row, ops);
    }
    model.summary("kernel directories", std::to_string(kernels.size()));
    model.summary("SDSC files", std::to_string(files));
    model.summary("populated", std::to_string(all.populated));
    model.summary("null", std::to_string(all.null));
    model.summary("absent", std::to_string(all.absent));
    model.summary("malformed", std::to_string(all.malformed));
    for (const auto& k : kernels) {
        for (const auto& op : k.ops) {
            for (const auto& p : op.problems) {
                model.problem(p);
            }
        }
    }
    for (const auto& p : problems) {
        model.problem(p);
    }
    write_html_page(out, model.title(), model.json());
}

} // namespace sdscprov

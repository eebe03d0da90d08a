// The Markdown report: the provenance section of a review, per kernel.
#include "report/printer_parts.hpp"
#include "sdscprov/core/display.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

namespace sdscprov::report_parts {

namespace {

std::string coverage_mark(std::uint64_t count, std::uint64_t total) {
    switch (coverage(count, total)) {
    case Coverage::all:
        return "\xE2\x9C\x85"; // check mark
    case Coverage::none:
        return "\xE2\x9D\x8C"; // cross mark
    case Coverage::some:
        break;
    }
    return "\xE2\x97\x90 " + std::to_string(count) + "/" + std::to_string(total);
}

// Every name, path and message is a code span of its own (markdown_code()): whatever a file or
// a directory is named, nothing of it renders as markup where the report is pasted.
std::string location(const Problem& p) {
    return markdown_code(quoted_location(p.path, p.pos));
}

// ---- Markdown: the SuperDSC provenance section of a review, per kernel --------------------

class MarkdownPrinter final : public ReportPrinter {
public:
    MarkdownPrinter(std::ostream& out, PrinterOptions options) : out_(out), options_(options) {}

    void item(const KernelReport& k) override {
        const auto& c = k.counts;
        body_ << "### " << (k.dir.kernel ? markdown_code(*k.dir.kernel) : "(unknown kernel)")
              << "\n\n";
        body_ << "- directory: " << markdown_code(quote_path(k.dir.path)) << '\n';
        body_ << "- ops (" << c.sdsc_documents() << "): ";
        bool first = true;
        for (const auto& f : k.files) {
            if (f.status == FileStatus::ok) {
                body_ << (first ? "" : ", ") << markdown_code(f.op_key);
                first = false;
            }
        }
        body_ << (first ? "none\n" : "\n");
        if (k.rewrite) {
            annotation_lines(k);
        } else {
            body_ << "- `debug_handle_`: populated " << c.populated << ", null " << c.null
                  << ", absent " << c.absent << ", malformed " << c.malformed
                  << "; compiler-generated " << c.compiler_generated << '\n';
        }
        std::set<std::string> sources;
        for (const auto& f : k.files) {
            if (f.handle && f.handle->source) {
                sources.insert(f.handle->source->file + ":" +
                               std::to_string(f.handle->source->start_line));
            }
        }
        if (!sources.empty()) {
            body_ << "- source lines:";
            for (const auto& s : sources) {
                body_ << ' ' << markdown_code(s);
            }
            body_ << '\n';
        }
        if (c.errors + c.warnings > 0) {
            body_ << "- problems: " << c.errors << " errors, " << c.warnings << " warnings\n";
        }
        std::uint64_t with_provenance = files_with_provenance(k);
        body_ << "- `sdsc_*.json` files: " << c.files << " &nbsp; provenance in JSON: "
              << coverage_mark(with_provenance, c.sdsc_documents()) << "\n\n";
    }

    // annotate (and strip): the state after the run (in a dry run: if written), then what was
    // written, file by file; the state as read is given for comparison.
    void annotation_lines(const KernelReport& k) {
        const auto& a = *k.rewrite;
        const auto& c = k.counts;
        std::uint64_t after = 0;
        std::string written;
        for (std::size_t i = 0; i < a.files.size(); ++i) {
            after += a.provided(i) ? 1 : 0;
            const auto& f = a.files[i];
            if (f.changes && (a.dry_run || f.written)) {
                written += std::string(written.empty() ? "" : ", ") +
                           markdown_code(quote_path(file_name_of(k.files[i].file.path))) + " (" +
                           std::string(to_string(f.action)) + ")";
            }
        }
        body_ << "- `debug_handle_`" << (a.dry_run ? " if written" : " after this run")
              << ": populated " << after << " of " << c.sdsc_documents() << " (as read: populated "
              << c.populated << ", null " << c.null << ", absent " << c.absent << ", malformed "
              << c.malformed << ")\n";
        body_ << "- " << (a.dry_run ? "would write" : "written") << ": "
              << (written.empty() ? std::string("nothing") : written) << '\n';
    }

    void end(const RunEnd& run) override {
        const Totals& t = run.totals;
        const std::vector<Problem>& problems = run.problems;
        const auto& c = t.counts;
        std::uint64_t docs = c.sdsc_documents();
        out_ << "## SuperDSC provenance: " << c.files << " `sdsc_*.json` file"
             << (c.files == 1 ? "" : "s") << " (" << t.kernels << " kernel"
             << (t.kernels == 1 ? "" : "s") << ")\n\n";
        out_ << "Provenance field present in any emitted `sdsc_*.json`: "
             << coverage_mark(t.with_provenance, docs) << "\n\n";
        out_ << "| Field | SuperDSC JSON |\n| --- | --- |\n";
        bool annotated = options_.command != ReportCommand::scan;
        for (std::size_t m = 0; m < provenance_member_count; ++m) {
            auto member = static_cast<ProvenanceMember>(m);
            std::uint64_t n = annotated && member == ProvenanceMember::debug_handle
                                  ? t.rewrites.provided
                                  : c.provenance[m];
            out_ << "| `" << to_string(member) << "` | " << coverage_mark(n, docs) << " |\n";
        }
        if (annotated) {
            const auto& a = t.rewrites;
            out_ << "\n`debug_handle_`" << (options_.dry_run ? " if written" : " after this run")
                 << ": populated " << a.provided << " of " << docs
                 << " SDSC documents (as read: populated " << c.populated << ", null " << c.null
                 << ", absent " << c.absent << ", malformed " << c.malformed << "); "
                 << (options_.dry_run ? "would write " : "written ")
                 << (options_.dry_run ? a.changes() : a.written) << " (" << a.added << " added, "
                 << a.filled << " filled, " << a.refreshed << " refreshed, " << a.stripped
                 << " stripped)"
                 << (a.failed > 0 ? ", " + plural(a.failed, "write") + " failed" : "") << "\n\n";
        } else {
            out_ << "\n`debug_handle_`: populated " << c.populated << ", null " << c.null
                 << ", absent " << c.absent << ", malformed " << c.malformed << " (of " << docs
                 << " SDSC documents); compiler-generated " << c.compiler_generated << "\n\n";
        }
        out_ << body_.str();
        if (!problems.empty()) {
            out_ << "### Problems\n\n";
            for (const auto& p : problems) {
                out_ << "- " << location(p) << ": " << to_string(p.severity) << ": "
                     << markdown_code(p.message) << " (`" << to_string(p.code) << "`)\n";
            }
            out_ << '\n';
        }
    }

private:
    std::ostream& out_;
    PrinterOptions options_;
    std::ostringstream body_;
};

} // namespace

std::unique_ptr<ReportPrinter> make_markdown_printer(std::ostream& out, PrinterOptions options) {
    return std::make_unique<MarkdownPrinter>(out, std::move(options));
}

} // namespace sdscprov::report_parts

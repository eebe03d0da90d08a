// strip's text output: the diffs of the files as they are stripped (--diff), then one line of
// what was stripped.
#include "report/printer_parts.hpp"

#include <ostream>

namespace sdscprov {

namespace {

class StripTextPrinter final : public ReportPrinter {
public:
    StripTextPrinter(std::ostream& out, std::ostream& summary_out, bool dry_run, bool remove)
        : out_(out), summary_out_(summary_out), dry_run_(dry_run), remove_(remove) {}

    void item(const KernelReport& k) override {
        for (const auto& f : k.rewrite->files) {
            out_ << f.diff; // empty without --diff
        }
    }

    void end(const RunEnd& run) override {
        const Totals& totals = run.totals;
        const auto& a = totals.rewrites;
        std::uint64_t done = dry_run_ ? a.stripped : a.written;
        summary_out_ << (dry_run_ ? "would strip: " : "stripped: ") << done << " file"
                     << (done == 1 ? "" : "s")
                     << (remove_ ? " (member removed)" : " (set to null)") << "; " << a.kept
                     << " without " << (remove_ ? "a handle" : "a populated handle") << ", of "
                     << totals.counts.files << " SDSC files";
        if (a.failed > 0) {
            summary_out_ << "; " << a.failed << " could not be written";
        }
        summary_out_ << '\n';
    }

private:
    std::ostream& out_;
    std::ostream& summary_out_;
    bool dry_run_;
    bool remove_;
};

} // namespace

std::unique_ptr<ReportPrinter> make_strip_printer(ReportFormat format, std::ostream& out,
                                                  std::ostream& summary_out,
                                                  PrinterOptions options, bool remove) {
    if (format == ReportFormat::json) {
        return make_printer(format, out, std::move(options));
    }
    return std::make_unique<StripTextPrinter>(out, summary_out, options.dry_run, remove);
}

} // namespace sdscprov

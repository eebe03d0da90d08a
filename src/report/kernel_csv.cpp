// scan's CSV: the header when made, then one record per kernel directory as it is delivered (the
// report streams in flat memory like the JSON one); the totals and problems are not rows (the
// problems go to standard error).
#include "report/csv_cells.hpp"
#include "sdscprov/report/csv_printers.hpp"

#include <ostream>

namespace sdscprov {

namespace {

// The counts of a kernel's files, as the JSON report's "counts" names them.
struct CountColumn {
    const char* name;
    std::uint64_t FileStateCounts::*field;
};
constexpr CountColumn count_columns[] = {
    {"files", &FileStateCounts::files},
    {"populated", &FileStateCounts::populated},
    {"null", &FileStateCounts::null},
    {"absent", &FileStateCounts::absent},
    {"malformed", &FileStateCounts::malformed},
    {"compiler_generated", &FileStateCounts::compiler_generated},
    {"not_sdsc", &FileStateCounts::not_sdsc},
    {"invalid_json", &FileStateCounts::invalid_json},
    {"unreadable", &FileStateCounts::unreadable},
    {"errors", &FileStateCounts::errors},
    {"warnings", &FileStateCounts::warnings},
};

class CsvPrinter final : public ReportPrinter {
public:
    explicit CsvPrinter(std::ostream& out) : out_(out) {
        std::vector<std::string> names{"dir", "kernel", "bundle"};
        for (const auto& c : count_columns) {
            names.emplace_back(c.name);
        }
        for (std::size_t m = 0; m < provenance_member_count; ++m) {
            names.push_back("provenance." +
                            std::string(to_string(static_cast<ProvenanceMember>(m))));
        }
        csv::header(buffer_, names);
    }

    void item(const KernelReport& k) override {
        csv::Record rec(buffer_);
        rec.text(k.dir.path).optional(k.dir.kernel).text(k.dir.has_bundle ? "true" : "false");
        for (const auto& c : count_columns) {
            rec.number(k.counts.*c.field);
        }
        for (std::size_t m = 0; m < provenance_member_count; ++m) {
            rec.number(k.counts.provenance[m]);
        }
        rec.end();
        if (buffer_.size() >= 64 * 1024) {
            flush();
        }
    }

    void end(const RunEnd& /*run*/) override {
        flush();
        out_.flush();
    }

private:
    void flush() {
        out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
        buffer_.clear();
    }

    std::ostream& out_;
    std::string buffer_;
};

} // namespace

std::unique_ptr<ReportPrinter> make_csv_printer(std::ostream& out) {
    return std::make_unique<CsvPrinter>(out);
}

} // namespace sdscprov

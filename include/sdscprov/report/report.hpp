// Reports: printers are separate from the work and interchangeable. A printer receives kernel
// results one at a time, in discovery order, and the totals at the end; it holds nothing it does
// not need, so that a 100,000-file cache streams through in flat memory.
#pragma once

#include "sdscprov/commands/results.hpp"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace sdscprov {

// The coverage column's cell for one member: all / n of total / none.
enum class Coverage { all, some, none };
Coverage coverage(std::uint64_t count, std::uint64_t total);
std::string_view to_string(Coverage c); // "all", "some", "none" (the JSON report's names)

enum class ReportFormat { text, json, markdown, html }; // html: report/html.hpp

struct PrinterOptions {
    bool color = false; // ANSI colour (the CLI enables it on a terminal without NO_COLOR)
    std::string command = "scan";
    bool dry_run = false; // annotate --dry-run / --check
    // Text: one row per directory (--all), instead of the kernels that need attention; and the
    // width every line fits in.
    bool all = false;
    std::size_t width = 100;
};

class ReportPrinter {
public:
    virtual ~ReportPrinter() = default;
    virtual void kernel(const KernelReport& report) = 0;
    // Called once at the end with every problem (file problems included, in discovery order).
    virtual void finish(const Totals& totals, const std::vector<Problem>& problems) = 0;
};

std::unique_ptr<ReportPrinter> make_printer(ReportFormat format, std::ostream& out,
                                            PrinterOptions options);

} // namespace sdscprov

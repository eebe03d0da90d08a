// explain's printers: text for people, JSON for tools.
#pragma once

#include "sdscprov/commands/explain.hpp"
#include "sdscprov/report/printer.hpp"
#include "sdscprov/report/report.hpp"

#include <memory>
#include <ostream>
#include <vector>

namespace sdscprov {

// Text for people: per kernel a header, per op a block (source line, ATen op, ir_chain, fused
// constituents, transform history, id), or what is missing and how to get it. ANSI colour when
// `color`.
void print_explain_text(std::ostream& out, const std::vector<ExplainKernel>& kernels, bool color);

// {"sdscprov_explain": 1, "kernels": [...], "problems": [...]} (docs/explain.md). `problems` are
// the ones about the target itself (resolution); each op carries its own.
void print_explain_json(std::ostream& out, const std::vector<ExplainKernel>& kernels,
                        const std::vector<Problem>& problems = {});

// explain's end: the problems about the target itself (resolution).
struct ExplainEnd {
    const std::vector<Problem>& problems;
};

// explain's printers: text (the kernels as they come), json and html (written at the end).
std::unique_ptr<Printer<ExplainKernel, ExplainEnd>>
make_explain_printer(ReportFormat format, std::ostream& out, bool color);

} // namespace sdscprov

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

// {"sdscprov_explain": 1, "kernels": [...], "problems": [...], "source_text": {...}}
// (docs/explain.md). `problems` are the ones about the target itself (resolution); each op
// carries its own. `source_text`: what was not read of the source files, and why.
void print_explain_json(std::ostream& out, const std::vector<ExplainKernel>& kernels,
                        const std::vector<Problem>& problems = {},
                        const SourceTextNote& source_text = {});

// explain's end: the problems about the target itself (resolution), and what the kernels'
// source lines did not read (the text report says it after the kernels, JSON in `source_text`).
struct ExplainEnd {
    const std::vector<Problem>& problems;
    const SourceTextNote& source_text;
};

// explain's printers: text (the kernels as they come), json and html (written at the end; the
// page reads its source windows under `source_text`).
std::unique_ptr<Printer<ExplainKernel, ExplainEnd>>
make_explain_printer(ReportFormat format, std::ostream& out, bool color,
                     const SourceTextOptions& source_text);

} // namespace sdscprov

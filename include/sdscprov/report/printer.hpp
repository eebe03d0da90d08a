// The one convention every command's output follows (the model: ripgrep's printer crate, apart
// from the search). A command's run gives its printer the items one at a time, in the run's
// order (scan, annotate, strip and check: each kernel directory; explain: each kernel it
// explains), then the run's end once: its totals and problems, or for a command whose result
// comes whole at the end (profile, of one trace or several, and profile --baseline) the result
// itself, with no items before it. The printer writes its format to the stream it was made
// with; the front prints the problems on standard error (before end() for scan, annotate and
// strip, whose text closes with the totals; after it for check, explain and profile), and then,
// for a command that closes with a line for people (check's count of findings), calls summary().
//
// Printers render what the run computed and count nothing of their own; they hold only what
// their format needs until the end (a text table of the kernels that need attention, a JSON
// document written whole), so that a cache of 100,000 files streams through in flat memory.
// Each command's printers come from one function of report/ taking the format (ReportFormat)
// and the stream: make_printer (scan, annotate), make_strip_printer, make_check_printer,
// make_explain_printer, make_profile_printer, make_comparison_printer. merge has none: what it
// prints is the merged report's JSON itself, made by the merge.
#pragma once

namespace sdscprov {

// The item type of a command that has none: its whole result is its end.
struct NoItems {};

template <class Item, class End> class Printer {
public:
    virtual ~Printer() = default;
    virtual void item(const Item& item) = 0;
    virtual void end(const End& run) = 0;
    // The closing line for people, after the problems (standard error); most formats have none.
    virtual void summary(const End& run) { static_cast<void>(run); }
};

} // namespace sdscprov

#include "profile/diagnostic_log.hpp"

#include <algorithm>

namespace sdscprov {

DiagnosticLog::DiagnosticLog(std::string path, TraceReader& reader)
    : path_(std::move(path)), reader_(reader) {}

Problem DiagnosticLog::at_event(ProblemCode code, const TraceEvent& e, std::string message) const {
    Problem p = make_problem(path_, reader_.position(e.offset), code, std::move(message));
    p.first_event = e.index;
    return p;
}

std::uint32_t DiagnosticLog::diagnose(ProblemCode code, const TraceEvent& e, std::string message) {
    auto key = std::make_pair(code, message);
    auto it = by_message_.find(key);
    if (it != by_message_.end()) {
        return it->second;
    }
    if (per_code_[code]++ >= max_per_code) {
        auto [over, added] = overflow_.try_emplace(code, 0U);
        if (added) {
            over->second = static_cast<std::uint32_t>(diagnostics_.size());
            diagnostics_.push_back(at_event(
                code, e,
                "more events of this kind, of other names or keys than the " +
                    std::to_string(max_per_code) +
                    " diagnostics of this code before it: counted here (from this event on)"));
        }
        return over->second;
    }
    auto index = static_cast<std::uint32_t>(diagnostics_.size());
    diagnostics_.push_back(at_event(code, e, std::move(message)));
    by_message_.emplace(std::move(key), index);
    return index;
}

void DiagnosticLog::diagnose_event(ProblemCode code, std::uint32_t bundle, const TraceEvent& e,
                                   const std::string& message) {
    auto [it, added] = by_bundle_.try_emplace({code, bundle}, 0U);
    if (added) {
        it->second = static_cast<std::uint32_t>(diagnostics_.size());
        diagnostics_.push_back(at_event(code, e, message));
    }
    ++diagnostics_[it->second].events;
}

std::vector<Problem> DiagnosticLog::report() const {
    std::vector<Problem> out;
    for (const auto& d : diagnostics_) {
        if (d.events > 0) {
            out.push_back(d);
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Problem& a, const Problem& b) {
        return a.first_event != b.first_event ? a.first_event < b.first_event : a.code < b.code;
    });
    return out;
}

} // namespace sdscprov

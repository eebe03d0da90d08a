// Internal: profile's diagnostics of trace events (profile.cpp), kept as Problems of the event
// codes: one per code and message for what a variant's pairing ran into, one per code and bundle
// for what single events' values ran into, each counting its events; bounded per code.
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/profile/trace.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sdscprov {

class DiagnosticLog {
public:
    // Distinct diagnostics per code; past it one more counts the events of the others (a trace
    // of a million distinct bad names stays small).
    static constexpr std::uint32_t max_per_code = 1000;

    // `reader` gives the positions in the trace at `path`.
    DiagnosticLog(std::string path, TraceReader& reader);

    // A diagnostic about the variant being created at `e`, one per code and message; its index.
    // Its events are counted by count().
    std::uint32_t diagnose(ProblemCode code, const TraceEvent& e, std::string message);
    // A diagnostic about single events of a bundle, one per code and bundle: `e` counted there.
    void diagnose_event(ProblemCode code, std::uint32_t bundle, const TraceEvent& e,
                        const std::string& message);
    // One more event of the diagnostic at `index`.
    void count(std::uint32_t index) { ++diagnostics_[index].events; }

    // The diagnostics that counted an event, by first event (then code).
    std::vector<Problem> report() const;

private:
    Problem at_event(ProblemCode code, const TraceEvent& e, std::string message) const;

    std::string path_;
    TraceReader& reader_;
    std::vector<Problem> diagnostics_;
    std::map<std::pair<ProblemCode, std::string>, std::uint32_t> by_message_;
    std::map<ProblemCode, std::uint32_t> per_code_;
    std::map<ProblemCode, std::uint32_t> overflow_;
    std::map<std::pair<ProblemCode, std::uint32_t>, std::uint32_t> by_bundle_;
};

} // namespace sdscprov

#include "sdscprov/profile/profile.hpp"

#include "profile/aggregation.hpp"
#include "profile/diagnostic_log.hpp"
#include "profile/pairing.hpp"

#include <limits>

namespace sdscprov {

// The builder: the diagnostic log, the pairing of events into variants, the aggregation of their
// time into bundles (each its own class), and the event last annotated.
struct ProfileBuilder::Impl {
    const PairingSources& sources;
    std::string path;
    bool annotate;
    DiagnosticLog log;
    Aggregation aggregation;
    Pairing pairing;
    const ProfileBundle* last_annotated = nullptr;
    bool last_timed = false;        // the timeline will tell last_annotated's figures
    std::uint64_t annotated_n = 0; // the events annotated so far (the next one's tag)

    Impl(const PairingSources& s, std::string p, TraceReader& r, bool a)
        : sources(s), path(std::move(p)), annotate(a), log(path, r),
          aggregation(s.utilization, log), pairing(s, aggregation, log) {}

    void event(const TraceEvent& e) {
        last_annotated = nullptr;
        aggregation.trace_event();
        if (!e.object) {
            log.diagnose_event(ProblemCode::not_an_event, std::numeric_limits<std::uint32_t>::max(),
                               e, "an element of traceEvents that is not an object: ignored");
            return;
        }
        if (e.ph_state != FieldState::ok || e.ph != "X") {
            return; // only complete events carry device time
        }
        aggregation.complete_event(e);
        if (!kernel_event(e)) {
            // Not one of the bundles' kernel events: still a device activity of the timeline when
            // its cat says so.
            if (auto kind = activity_kind(e)) {
                aggregation.device_activity(e, *kind);
            }
        }
    }

    // A kernel event's pairing and time; false when it is not one.
    bool kernel_event(const TraceEvent& e) {
        bool kernel_name = e.name_state == FieldState::ok && e.name.starts_with("spyre_kernel");
        if (!kernel_name && e.provenance_key_state == FieldState::absent) {
            return false;
        }
        std::optional<Variant> uncached;
        const Variant& v = pairing.variant(e, uncached);
        for (auto d : v.diagnostics) {
            log.count(d);
        }
        if (!v.kernel) {
            return false;
        }
        const std::uint32_t slot = v.group ? aggregation.unresolved_bundle(*v.group) : v.bundle;
        const bool resolved =
            aggregation.bundle(slot).bundle.resolution != Resolution::unresolved;
        const bool annotated = annotate && resolved && !e.has_sdscprov_arg &&
                               e.args_state != FieldState::wrong_type;
        const BundleState& bundle = aggregation.add_event(
            slot, v.group.has_value(), e, annotated ? annotated_n : TimelineLog::no_tag);
        if (annotated) {
            ++annotated_n;
            last_annotated = &bundle.bundle;
            last_timed = aggregation.last_timed();
        } else if (annotate && resolved && e.has_sdscprov_arg) {
            log.diagnose_event(ProblemCode::already_annotated, slot, e,
                               "args.sdscprov is there already: the event is left as it is");
        }
        return true;
    }

    ProfileReport finish(const TraceReadResult& read) {
        ProfileReport r = aggregation.finish(read, path, sources.sidecars);
        r.diagnostics = log.report();
        r.distributed_rank = read.stats.distributed_rank;
        return r;
    }
};

ProfileBuilder::ProfileBuilder(const PairingSources& sources, std::string trace_path,
                               TraceReader& reader, bool annotate)
    : impl_(std::make_unique<Impl>(sources, std::move(trace_path), reader, annotate)) {}

ProfileBuilder::~ProfileBuilder() = default;

void ProfileBuilder::event(const TraceEvent& e) {
    impl_->event(e);
}

void ProfileBuilder::record_steps() {
    impl_->aggregation.record_steps();
}

void ProfileBuilder::span_filter(const SpanFilter& filter) {
    impl_->aggregation.span_filter(filter);
}

const ProfileBundle* ProfileBuilder::annotated_bundle() const {
    return impl_->last_annotated;
}

bool ProfileBuilder::annotated_timed() const {
    return impl_->last_timed;
}

void ProfileBuilder::time_annotated(TimelineLog::Timed timed) {
    impl_->aggregation.time_each(std::move(timed));
}

ProfileReport ProfileBuilder::finish(const TraceReadResult& read) {
    return impl_->finish(read);
}

void ProfileBuilder::label_frames(ProfileBundle& bundle) {
    sdscprov::label_frames(bundle); // aggregation.hpp's, not this member
}

void ProfileBuilder::label_bundles(std::vector<ProfileBundle>& bundles) {
    label_rows(bundles);
}

void read_line_texts(ProfileReport& report, const SourceTextOptions& source_text) {
    SourceLines lines(source_text);
    for (auto& ranking : report.rankings) {
        for (auto& row : ranking.rows) {
            if (row.line) {
                row.text = lines.line(row.line->file, row.line->line);
            }
        }
    }
    report.source_text = lines.note();
}

} // namespace sdscprov

#include "profile/aggregation.hpp"

#include "profile/saturating.hpp"
#include "profile/utilization_rows.hpp"
#include "sdscprov/core/path.hpp"

#include <algorithm>

namespace sdscprov {

bool heavier(const DeviceTime& a, const DeviceTime& b) {
    return a.ns != b.ns ? a.ns > b.ns : a.events > b.events;
}

void sort_rows(std::vector<ProfileRow>& rows) {
    std::sort(rows.begin(), rows.end(), [](const ProfileRow& a, const ProfileRow& b) {
        if (a.time.ns != b.time.ns || a.time.events != b.time.events) {
            return heavier(a.time, b.time);
        }
        return a.label < b.label;
    });
}

// Each bundle's row label (ProfileBundle::label): the kernel and what tells it apart.
void label_rows(std::vector<ProfileBundle>& bundles) {
    // The event name (the kernel when no kernel name is known) ends with the key already.
    auto by_key = [](const ProfileBundle& b) {
        return b.kernel_names.empty() ? b.kernel_label : b.kernel_label + "@" + b.key;
    };
    std::map<std::string, std::size_t> uses;
    for (auto& b : bundles) {
        if (b.resolution == Resolution::unresolved) {
            b.label = b.kernel_label;
        } else if (b.kernel_dirs.size() == 1) {
            b.label = b.kernel_label + "@" + std::string(base_name(b.kernel_dirs.front()));
        } else {
            b.label = by_key(b);
        }
        ++uses[b.label];
    }
    for (auto& b : bundles) {
        if (uses[b.label] < 2) {
            continue;
        }
        if (b.resolution != Resolution::unresolved) {
            b.label = by_key(b); // keys are distinct among paired bundles
        } else if (b.reason) {
            b.label += " [" + std::string(to_string(*b.reason)) + "]";
        }
    }
}

void label_frames(ProfileBundle& b) {
    bool paired = b.resolution != Resolution::unresolved;
    // Time in ops the compiler created is compiler-generated, apart from time of no known source.
    b.root_label = paired ? joined(
                                b.lines, [](const SourceLine& l) { return l.label(); },
                                b.compiler_generated ? "[compiler-generated]" : "[no source]")
                          : "[unresolved]";
    b.aten_label = paired ? joined(
                                b.aten_ops, [](const std::string& s) { return s; }, "[no aten op]")
                          : "[unresolved]";
    b.kernel_label = joined(
        b.kernel_names, [](const std::string& s) { return s; }, b.event_name);
}

Aggregation::Aggregation(const UtilizationOptions& utilization, DiagnosticLog& log)
    : ideals_(utilization), log_(log) {}

std::uint32_t Aggregation::add_paired(BundleState state) {
    auto index = static_cast<std::uint32_t>(bundles_.size());
    bundles_.push_back(std::move(state));
    return index;
}

Aggregation::Rank Aggregation::rank(const BundleState& b, std::uint32_t slot) {
    return {b.bundle.time.ns, b.bundle.time.events, slot};
}

std::uint32_t Aggregation::overflow(ProblemCode reason) {
    if (!overflow_group_) {
        overflow_group_ = static_cast<std::uint32_t>(bundles_.size());
        BundleState b;
        b.bundle.event_name = "(other unpaired events)";
        b.bundle.reason = reason; // of the first group that went there
        bundles_.push_back(std::move(b));
        label_frames(bundles_.back().bundle);
    }
    return *overflow_group_;
}

// The least kept group leaves for the overflow group: its slot, emptied.
std::uint32_t Aggregation::evict_least(ProblemCode reason) {
    std::uint32_t other = overflow(reason);
    std::uint32_t slot = std::get<2>(*unresolved_ranking_.begin());
    unresolved_ranking_.erase(unresolved_ranking_.begin());
    BundleState& least = bundles_[slot];
    bundles_[other].bundle.time.add(least.bundle.time);
    if (step_log_) {
        step_log_->moved(slot, other);
    }
    timeline_.moved(slot, other);
    ++overflow_names_;
    evicted_names_.add(*least.bundle.reason, least.bundle.event_name);
    unresolved_by_name_.erase({*least.bundle.reason, least.bundle.event_name});
    least = BundleState{};
    return slot;
}

std::uint32_t Aggregation::unresolved_bundle(const UnpairedGroup& g) {
    auto name = std::make_pair(g.reason, g.name);
    auto it = unresolved_by_name_.find(name);
    if (it != unresolved_by_name_.end()) {
        return it->second;
    }
    std::uint32_t slot = 0;
    if (unresolved_by_name_.size() < ProfileBuilder::max_unresolved_groups) {
        slot = static_cast<std::uint32_t>(bundles_.size());
        bundles_.emplace_back();
    } else {
        if (evicted_names_.may_hold(g.reason, g.name)) {
            return overflow(g.reason);
        }
        slot = evict_least(g.reason);
    }
    ProfileBundle& b = bundles_[slot].bundle;
    b.key = g.key;
    b.event_name = g.name;
    b.reason = g.reason;
    label_frames(b);
    unresolved_by_name_.emplace(std::move(name), slot);
    unresolved_ranking_.insert(rank(bundles_[slot], slot));
    return slot;
}

// One event's device time, stages and ideal; what its dur and cycles_ts ran into diagnosed.
DeviceTime Aggregation::event_time(std::uint32_t slot, const TraceEvent& e) {
    DeviceTime t;
    t.events = 1;
    const std::optional<std::uint64_t> ns = event_dur_ns(e);
    if (ns) {
        t.ns = *ns;
        if (bundles_[slot].bundle.ideal) {
            ideal_event(t, slot, e);
        }
    } else {
        ++coverage_.unmeasured_events;
        std::string what =
            e.dur_state == FieldState::absent ? "a kernel event without dur"
            : e.dur_state == FieldState::wrong_type
                ? "dur is not a number"
                : "dur " + std::string(e.dur) + " is negative or longer than 2^62 ns";
        log_.diagnose_event(ProblemCode::bad_duration, slot, e,
                            what + ": the time of these events is not counted");
    }
    if (e.cycles_ts_state == FieldState::ok && e.cycles_ts_count == 5 && e.cycles_ts_counters) {
        if (std::all_of(e.cycles_ts.begin(), e.cycles_ts.end(),
                        [](std::uint32_t c) { return c == 0; })) {
            ++coverage_.counters_failed_events;
        } else {
            t.stages = stages_of(e.cycles_ts);
        }
    } else if (e.cycles_ts_state != FieldState::absent) {
        log_.diagnose_event(ProblemCode::bad_cycles_ts, slot, e,
                            "args.cycles_ts is not five integers in [0, 2^32): the stages of "
                            "these events are not counted");
    }
    return t;
}

void Aggregation::ideal_event(DeviceTime& t, std::uint32_t slot, const TraceEvent& e) {
    const BundleIdeal& ideal = *bundles_[slot].bundle.ideal;
    if (t.ideal.add_event(t.ns, ideal.ns)) {
        log_.diagnose_event(ProblemCode::util_over_100, slot, e,
                            "the ideal of " + std::to_string(ideal.ns) + " ns (" +
                                std::to_string(ideal.kernel.cycles) + " cycles at " +
                                std::to_string(ideals_.core_mhz()) + " MHz, " + ideal.kernel_dir +
                                "/" + std::string(ideal_cycles_path) +
                                ") is longer than the measured dur: over 100% utilization");
    }
}

const BundleState& Aggregation::add_event(std::uint32_t slot, bool unpaired, const TraceEvent& e,
                                          std::uint64_t tag) {
    BundleState& bundle = bundles_[slot];
    for (auto d : bundle.diagnostics) {
        log_.count(d);
    }
    DeviceTime t = event_time(slot, e);
    if (deferring_) {
        // Held until the timeline says whether it counts; without a usable ts and dur it is no
        // activity, in no span: it does not count.
        std::uint32_t at = 0;
        if (free_held_.empty()) {
            at = static_cast<std::uint32_t>(held_.size());
            held_.push_back(t);
        } else {
            at = free_held_.back();
            free_held_.pop_back();
            held_[at] = t;
        }
        last_timed_ = timeline_.activity(e, ActivityKind::kernel, slot, at, tag);
        if (!last_timed_) {
            free_held_.push_back(at);
        }
        return bundle;
    }
    (void)unpaired;
    count(slot, t, event_ts_ns(e));
    last_timed_ = timeline_.activity(e, ActivityKind::kernel, slot, TimelineLog::no_slot, tag);
    return bundle;
}

void Aggregation::count(std::uint32_t slot, const DeviceTime& t,
                        std::optional<std::uint64_t> start_ns) {
    BundleState& bundle = bundles_[slot];
    const bool ranked = bundle.bundle.resolution == Resolution::unresolved &&
                        slot != overflow_group_ &&
                        unresolved_ranking_.erase(rank(bundle, slot)) > 0;
    bundle.bundle.time.add(t);
    if (step_log_) {
        step_log_->kernel_at(slot, start_ns, t.ns);
    }
    if (ranked) {
        unresolved_ranking_.insert(rank(bundle, slot));
    }
    stages_.add(t.stages);
    coverage_ideal_.add(t.ideal);
    ++coverage_.kernel_events;
    coverage_.kernel_ns = saturating_add(coverage_.kernel_ns, t.ns);
    if (bundle.bundle.resolution != Resolution::unresolved) {
        ++coverage_.resolved_events;
        coverage_.resolved_ns = saturating_add(coverage_.resolved_ns, t.ns);
    }
}

void Aggregation::span_filter(const SpanFilter& filter) {
    deferring_ = true;
    timeline_.filter(filter, [this](std::uint32_t slot, std::uint32_t deferred, bool kept,
                                    std::uint64_t start_ns) {
        settled(slot, deferred, kept, start_ns);
    });
}

void Aggregation::settled(std::uint32_t slot, std::uint32_t deferred, bool kept,
                          std::uint64_t start_ns) {
    if (kept && slot < bundles_.size()) {
        count(slot, held_[deferred], start_ns);
    }
    free_held_.push_back(deferred);
}

namespace {

// A step's bundles by their index in the report (`index`: each slot's, no_slot for a bundle left
// out), in that order.
void index_step_bundles(StepTimeline& step, const std::vector<std::uint32_t>& index) {
    std::vector<StepBundleTime> by_index;
    for (const auto& b : step.bundles) {
        if (b.bundle < index.size() && index[b.bundle] != TimelineLog::no_slot) {
            by_index.push_back(b);
            by_index.back().bundle = index[b.bundle];
        }
    }
    std::sort(by_index.begin(), by_index.end(),
              [](const StepBundleTime& a, const StepBundleTime& b) { return a.bundle < b.bundle; });
    step.bundles = std::move(by_index);
}

} // namespace

// The bundles that events reached, largest first (then key, event name, reason), labelled, and
// their handles by id.
void Aggregation::take_bundles(ProfileReport& r) {
    std::vector<std::uint32_t> order(bundles_.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        const auto& a = bundles_[x].bundle;
        const auto& b = bundles_[y].bundle;
        if (a.time.ns != b.time.ns || a.time.events != b.time.events) {
            return heavier(a.time, b.time);
        }
        return std::tie(a.key, a.event_name, a.reason) < std::tie(b.key, b.event_name, b.reason);
    });
    // The timeline first: with --span it settles the kernel events still held.
    TimelineLog::Result timeline = timeline_.finish(bundles_.size());
    r.timeline = std::move(timeline.summary);
    r.spans = std::move(*timeline.spans);
    std::optional<StepLog::Attributed> in_steps;
    if (step_log_) {
        in_steps = step_log_->attribute(bundles_.size());
        r.steps = in_steps->summary;
    }
    delays_.clear();
    std::map<std::string, DebugHandle> handles;
    std::vector<std::uint32_t> index(bundles_.size(), TimelineLog::no_slot); // slot -> r.bundles
    for (auto i : order) {
        // A group that no event reached (only its variant's diagnostics) is left out.
        if (bundles_[i].bundle.time.events == 0) {
            continue;
        }
        if (in_steps) {
            bundles_[i].bundle.step_ns = in_steps->ns[i];
            bundles_[i].bundle.step_events = in_steps->events[i];
        }
        bundles_[i].bundle.idle = timeline.idle[i];
        bundles_[i].bundle.launch = timeline.launch[i];
        delays_.push_back(std::move(timeline.delays[i]));
        for (auto& h : bundles_[i].handles) {
            handles.emplace(h.id, h);
        }
        index[i] = static_cast<std::uint32_t>(r.bundles.size());
        r.bundles.push_back(bundles_[i].bundle);
    }
    for (auto& step : r.timeline.steps) {
        index_step_bundles(step, index);
    }
    label_rows(r.bundles);
    for (auto& [id, h] : handles) {
        r.handles.push_back(std::move(h));
    }
    std::sort(r.handles.begin(), r.handles.end(), [](const DebugHandle& a, const DebugHandle& b) {
        return a.id.size() != b.id.size() ? a.id.size() < b.id.size() : a.id < b.id;
    });
}

// The bundles found in no kernel directory (explain cannot show them), and the rankings.
void Aggregation::rankings(ProfileReport& r) const {
    for (const auto& b : r.bundles) {
        if (b.resolution == Resolution::unresolved) {
            continue;
        }
        ++r.coverage.paired_bundles;
        if (b.kernel_dirs.empty()) {
            ++r.coverage.dirless_bundles;
            r.coverage.dirless_events = saturating_add(r.coverage.dirless_events, b.time.events);
            r.coverage.dirless_ns = saturating_add(r.coverage.dirless_ns, b.time.ns);
        }
    }
    // The texts of source line rows are read later, under the source-text rule
    // (read_line_texts).
    build_rankings(r, builtin_rankings(), {});
    row_medians(r);
}

// Each row's median launch delay, over the events of its bundles: a row of one bundle has the
// bundle's (take_bundles() put it there).
void Aggregation::row_medians(ProfileReport& r) const {
    for (auto& ranking : r.rankings) {
        for (auto& row : ranking.rows) {
            if (row.bundles.size() == 1 && row.bundles.front() < delays_.size()) {
                row.launch.median_ns = r.bundles[row.bundles.front()].launch.median_ns;
                continue;
            }
            DelayValues values;
            for (auto b : row.bundles) {
                if (b < delays_.size()) {
                    values.append(delays_[b]);
                }
            }
            row.launch.median_ns = values.median();
        }
    }
}

ProfileReport Aggregation::finish(const TraceReadResult& read, const std::string& trace,
                                  const std::vector<SpyreProvenance>& sidecars) {
    ProfileReport r;
    r.trace = trace;
    r.gzip = read.stats.gzip;
    r.trace_bytes = read.stats.bytes;
    for (const auto& doc : sidecars) {
        r.sidecars.push_back(doc.path);
    }
    if (overflow_group_) {
        ProfileBundle& other = bundles_[*overflow_group_].bundle;
        other.event_name =
            "(other unpaired events: at least " + std::to_string(overflow_names_) + " names)";
        label_frames(other);
    }
    take_bundles(r);
    r.coverage = coverage_; // once take_bundles settled what the timeline held
    r.stages = stages_;
    rankings(r);
    r.ideal = ideals_.summary();
    r.ideal.time = coverage_ideal_;
    r.problems = ideals_.take_problems();
    return r;
}

} // namespace sdscprov

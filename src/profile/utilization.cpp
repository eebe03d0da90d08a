#include "sdscprov/profile/utilization.hpp"

#include "profile/saturating.hpp"
#include "profile/utilization_rows.hpp"

#include <algorithm>
#include <map>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <set>
#include <unordered_map>

namespace sdscprov {

void IdealTime::add(const IdealTime& other) {
    events = saturating_add(events, other.events);
    measured_ns = saturating_add(measured_ns, other.measured_ns);
    ideal_ns = saturating_add(ideal_ns, other.ideal_ns);
    lost_ns = saturating_add(lost_ns, other.lost_ns);
    over_100_events = saturating_add(over_100_events, other.over_100_events);
}

bool IdealTime::add_event(std::uint64_t dur_ns, std::uint64_t ideal) {
    const bool over = ideal > dur_ns;
    events = saturating_add(events, 1);
    measured_ns = saturating_add(measured_ns, dur_ns);
    ideal_ns = saturating_add(ideal_ns, ideal);
    lost_ns = saturating_add(lost_ns, over ? 0 : dur_ns - ideal);
    over_100_events += over ? 1 : 0;
    return over;
}

std::optional<double> utilization(const IdealTime& t) {
    if (t.events == 0 || t.measured_ns == 0) {
        return std::nullopt;
    }
    return static_cast<double>(t.ideal_ns) / static_cast<double>(t.measured_ns);
}

std::string category_label(const std::optional<BundleIdeal>& ideal, bool paired) {
    if (!paired) {
        return std::string(unresolved_label);
    }
    if (!ideal) {
        return std::string(no_ideal_label);
    }
    return ideal->kernel.category ? *ideal->kernel.category : std::string(no_category_label);
}

// ---- the kernel directories' files --------------------------------------------------------------

struct KernelIdeals::Impl {
    UtilizationOptions options;
    IdealCyclesReader reader;
    // Per directory read: its ideal, if any (nullopt: absent or unusable).
    std::unordered_map<std::string, std::optional<KernelIdeal>> read;
    IdealSummary summary;
    std::set<std::string> members_seen;
    std::vector<Problem> problems;

    const std::optional<KernelIdeal>& of_dir(const std::string& dir) {
        auto found = read.find(dir);
        if (found != read.end()) {
            return found->second;
        }
        IdealCyclesRead r = reader.read(dir, options.read);
        ++summary.dirs_read;
        if (r.problem) {
            ++summary.dirs_malformed;
            problems.push_back(std::move(*r.problem));
        } else if (!r.ideal) {
            ++summary.dirs_absent;
        } else {
            ++(r.ideal->rule == IdealRule::total_entry ? summary.dirs_by_total
                                                       : summary.dirs_by_sum);
            for (const auto& m : r.ideal->other_members) {
                if (members_seen.insert(m).second) {
                    summary.other_members.push_back(m);
                }
            }
        }
        return read.emplace(dir, std::move(r.ideal)).first->second;
    }
};

KernelIdeals::KernelIdeals(UtilizationOptions options) : impl_(std::make_unique<Impl>()) {
    impl_->options = std::move(options);
    impl_->summary.core_mhz = impl_->options.core_mhz;
}

KernelIdeals::~KernelIdeals() = default;

std::optional<BundleIdeal> KernelIdeals::of_bundle(const std::vector<std::string>& kernel_dirs,
                                                   std::vector<std::string>* differing) {
    std::optional<BundleIdeal> ideal;
    bool agree = true;
    for (std::size_t i = 0; i < kernel_dirs.size(); ++i) {
        const auto& kernel = impl_->of_dir(kernel_dirs[i]);
        if (i == 0) {
            if (kernel) {
                ideal = BundleIdeal{kernel_dirs[i], *kernel,
                                    ideal_ns(kernel->cycles, impl_->options.core_mhz)};
            }
        } else if (kernel.has_value() != ideal.has_value() ||
                   (kernel && kernel->cycles != ideal->kernel.cycles)) {
            agree = false;
        }
    }
    if (!agree) {
        ideal.reset();
        if (differing != nullptr) {
            *differing = kernel_dirs;
        }
    }
    ++(ideal ? impl_->summary.bundles_with_ideal : impl_->summary.bundles_without_ideal);
    return ideal;
}

std::uint32_t KernelIdeals::core_mhz() const {
    return impl_->options.core_mhz;
}

IdealSummary KernelIdeals::summary() const {
    return impl_->summary;
}

std::vector<Problem> KernelIdeals::take_problems() {
    return std::exchange(impl_->problems, {});
}

std::string with_ideal(std::string_view annotation, const BundleIdeal& ideal,
                       const std::uint64_t* dur_ns) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    w.StartObject();
    w.Key("ideal_ns");
    w.Uint64(ideal.ns);
    w.Key("util");
    if (dur_ns != nullptr && *dur_ns > 0) {
        w.Double(static_cast<double>(ideal.ns) / static_cast<double>(*dur_ns));
    } else {
        w.Null();
    }
    w.EndObject();
    std::string_view fields(buffer.GetString() + 1, buffer.GetSize() - 2); // without the braces
    std::string out(annotation.substr(0, annotation.rfind('}')));
    out += annotation.size() > 2 ? "," : "";
    return out.append(fields).append("}");
}

} // namespace sdscprov

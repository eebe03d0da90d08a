#include "profile/derived.hpp"

#include <functional>

namespace sdscprov {

CatKind cat_kind_of(FieldState state, std::string_view cat) {
    if (state != FieldState::ok) {
        return CatKind::other;
    }
    if (cat == "kernel") {
        return CatKind::kernel;
    }
    if (cat == "gpu_memcpy" || cat == "gpu_memset") {
        return CatKind::transfer;
    }
    if (cat == "user_annotation") {
        return CatKind::user_annotation;
    }
    if (cat == "cpu_op") {
        return CatKind::cpu_op;
    }
    if (cat.find("runtime") != std::string_view::npos || cat == "cuda_driver") {
        return CatKind::runtime;
    }
    return CatKind::other;
}

bool pairs(const TraceEvent& e) {
    return e.object && e.ph_state == FieldState::ok && e.ph == "X" &&
           ((e.name_state == FieldState::ok && e.name.starts_with("spyre_kernel")) ||
            e.provenance_key_state != FieldState::absent);
}

std::uint64_t variant_hash_of(const TraceEvent& e, std::string& scratch) {
    variant_key(e, scratch);
    return std::hash<std::string_view>{}(scratch);
}

namespace {

// The timeline's args: their bit, state, text and number.
struct ArgField {
    ArgsNumber which;
    FieldState TraceEvent::*state;
    std::string_view TraceEvent::*text;
    std::uint64_t TraceEvent::*number;
};
constexpr ArgField arg_fields[] = {
    {correlation_number, &TraceEvent::correlation_state, &TraceEvent::correlation,
     &TraceEvent::correlation_n},
    {queued_number, &TraceEvent::queued_state, &TraceEvent::queued, &TraceEvent::queued_n},
    {submitted_number, &TraceEvent::submitted_state, &TraceEvent::submitted,
     &TraceEvent::submitted_n},
    {bytes_number, &TraceEvent::bytes_state, &TraceEvent::bytes, &TraceEvent::bytes_n},
};

const ArgField& field_of(ArgsNumber which) {
    for (const auto& f : arg_fields) {
        if (f.which == which) {
            return f;
        }
    }
    return arg_fields[0];
}

} // namespace

std::optional<std::uint64_t> arg_number_of_text(const TraceEvent& e, ArgsNumber which) {
    const ArgField& f = field_of(which);
    return whole_number(e.*f.state, e.*f.text);
}

void derive_fields(TraceEvent& e) {
    e.cat_kind = cat_kind_of(e.cat_state, e.cat);
    const bool timed = e.cat_kind == CatKind::kernel || e.cat_kind == CatKind::transfer ||
                       e.cat_kind == CatKind::runtime || pairs(e);
    if (!timed) {
        return; // the timeline reads none of them: worked out on the spot if ever asked for
    }
    e.args_numbers = 0;
    for (const auto& f : arg_fields) {
        if (auto v = whole_number(e.*f.state, e.*f.text)) {
            e.*f.number = *v;
            e.args_numbers |= f.which;
        }
    }
    e.args_numbers_known = true;
}

void derive(TraceEvent& e, std::string& scratch) {
    if (pairs(e)) {
        e.variant_hash = variant_hash_of(e, scratch);
        e.variant_hash_known = true;
    }
}

} // namespace sdscprov

#include "sdscprov/commands/results.hpp"

namespace sdscprov {

GeneratedForm compiler_generated(const ScanResult& r) {
    if (r.status != FileStatus::ok) {
        return GeneratedForm::none;
    }
    switch (r.handle_state) {
    case HandleState::populated:
        return r.handle ? sdscprov::compiler_generated(r.opfunc, &*r.handle) : GeneratedForm::none;
    case HandleState::null:
    case HandleState::absent:
        return sdscprov::compiler_generated(r.opfunc, nullptr);
    case HandleState::malformed:
        break;
    }
    return GeneratedForm::none;
}

GeneratedForm compiler_generated(const KernelReport& k, std::size_t file) {
    GeneratedForm form = compiler_generated(k.files[file]);
    if (!k.rewrite || file >= k.rewrite->files.size() || !k.rewrite->join ||
        k.rewrite->join->match != KernelMatch::matched) {
        return form;
    }
    const FileAction action = k.rewrite->files[file].action;
    if (action == FileAction::no_origin) {
        return form == GeneratedForm::none ? GeneratedForm::no_fx_origins : form;
    }
    // The map gives the op FX origins, so a handle: an opfunc of the family is not enough.
    return form == GeneratedForm::layout_opfunc && (writes(action) || action == FileAction::keep ||
                                                    action == FileAction::differs)
               ? GeneratedForm::none
               : form;
}

void FileStateCounts::add(const ScanResult& r) {
    ++files;
    switch (sdscprov::compiler_generated(r)) {
    case GeneratedForm::none:
    case GeneratedForm::no_fx_origins:
        break;
    case GeneratedForm::sourceless_handle:
        ++compiler_generated;
        break;
    case GeneratedForm::layout_opfunc:
        ++compiler_generated;
        ++generated_unhandled;
        break;
    }
    switch (r.status) {
    case FileStatus::ok:
        switch (r.handle_state) {
        case HandleState::populated:
            ++populated;
            break;
        case HandleState::null:
            ++null;
            break;
        case HandleState::absent:
            ++absent;
            break;
        case HandleState::malformed:
            ++malformed;
            break;
        }
        for (std::size_t m = 0; m < provenance_member_count; ++m) {
            provenance[m] += r.has(static_cast<ProvenanceMember>(m)) ? 1 : 0;
        }
        break;
    case FileStatus::not_sdsc:
        ++not_sdsc;
        break;
    case FileStatus::invalid_json:
        ++invalid_json;
        break;
    case FileStatus::unreadable:
        ++unreadable;
        break;
    }
    for (const auto& p : r.problems) {
        errors += p.severity == Severity::error ? 1 : 0;
        warnings += p.severity == Severity::warning ? 1 : 0;
    }
}

void FileStateCounts::add(const FileStateCounts& o) {
    files += o.files;
    populated += o.populated;
    null += o.null;
    absent += o.absent;
    malformed += o.malformed;
    not_sdsc += o.not_sdsc;
    invalid_json += o.invalid_json;
    unreadable += o.unreadable;
    errors += o.errors;
    warnings += o.warnings;
    compiler_generated += o.compiler_generated;
    generated_unhandled += o.generated_unhandled;
    for (std::size_t m = 0; m < provenance_member_count; ++m) {
        provenance[m] += o.provenance[m];
    }
}

void RewriteCounts::add_join(const JoinOutcome& join) {
    switch (join.match) {
    case KernelMatch::matched:
        ++kernels_matched;
        break;
    case KernelMatch::not_in_map:
        ++kernels_not_in_map;
        break;
    case KernelMatch::ambiguous:
        ++kernels_ambiguous;
        break;
    case KernelMatch::unusable:
        ++kernels_unusable;
        break;
    }
    lost_ops += join.lost_ops.size();
}

void RewriteCounts::add(const KernelReport& k) {
    if (!k.rewrite) {
        return;
    }
    const auto& a = *k.rewrite;
    if (a.join) {
        add_join(*a.join);
    }
    for (std::size_t i = 0; i < a.files.size(); ++i) {
        const auto& f = a.files[i];
        // A run counts what it did: a change whose write failed is `failed`, not `added`. A dry
        // run counts what it would do.
        bool done = f.changes && (a.dry_run || f.written);
        added += done && f.action == FileAction::add ? 1 : 0;
        filled += done && f.action == FileAction::fill ? 1 : 0;
        refreshed += done && f.action == FileAction::refresh ? 1 : 0;
        stripped +=
            done && (f.action == FileAction::strip || f.action == FileAction::remove) ? 1 : 0;
        failed += f.changes && !done ? 1 : 0;
        written += f.written ? 1 : 0;
        kept += f.action == FileAction::keep ? 1 : 0;
        differs += f.action == FileAction::differs ? 1 : 0;
        no_origin += f.action == FileAction::no_origin ? 1 : 0;
        opfunc_mismatch += f.action == FileAction::opfunc_mismatch ? 1 : 0;
        lacking += a.provided(i) ? 0 : 1;
        generated_lacking += !a.provided(i) && i < k.files.size() &&
                                     compiler_generated(k, i) != GeneratedForm::none
                                 ? 1
                                 : 0;
        provided += a.provided(i) ? 1 : 0;
    }
}

std::uint64_t files_with_provenance(const KernelReport& k) {
    std::uint64_t n = 0;
    auto handle_bit =
        static_cast<std::uint8_t>(1U << static_cast<unsigned>(ProvenanceMember::debug_handle));
    for (std::size_t i = 0; i < k.files.size(); ++i) {
        const auto& r = k.files[i];
        if (!k.rewrite) {
            n += r.status == FileStatus::ok && r.provenance != 0 ? 1 : 0;
            continue;
        }
        bool others = r.status == FileStatus::ok && (r.provenance & ~handle_bit) != 0;
        n += others || k.rewrite->provided(i) ? 1 : 0;
    }
    return n;
}

void Totals::add(const KernelReport& k) {
    ++kernels;
    counts.add(k.counts);
    rewrites.add(k);
    with_provenance += files_with_provenance(k);
}

} // namespace sdscprov

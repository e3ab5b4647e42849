// Readable regions for `libsplit-cc --regions`. The summary's expressions
// carry range checks the analysis adds as zero-valued terms, e.g.
// `(+ x (* 0 (fits_i32 gid0)))`: x, valid only while gid0 fits an int (the
// kernel's narrow arithmetic equals int64 arithmetic only then). The summary
// keeps them (the runtime evaluates them; dropping them would be unsound);
// for people they are pulled out into an "assuming" list and the rest is
// simplified: constants folded, like terms of sums merged, zero terms
// dropped, (min x x) / (range x x) = x.
#pragma once

#include "libsplit/summary.h"

#include <string>
#include <vector>

namespace libsplit::trace {

// e without its range checks, simplified; each check ("gid0 fits i32") is
// appended to *checks (no duplicates).
ExprPtr simplify_for_reading(const ExprPtr& e, std::vector<std::string>* checks);

// print_region of the simplified region, followed by
// "   (assuming gid0 fits i32, ...)" when it has range checks.
std::string print_readable_region(const AccessRegion& region);

}  // namespace libsplit::trace

// Source-to-source rewrite of an OpenCL C program into its partition-ready
// form (see README.md): every kernel gets the hidden `ulong4 __libsplit_ctx`
// parameter, every user function that (transitively) calls a builtin whose
// value differs between a slice and the full launch gets it too, every call
// to such a function passes it on, and a prelude redefines those builtins as
// macros that read the full-launch values from the ctx.
#pragma once

#include <string>
#include <vector>

namespace clang {
class ASTContext;
}

namespace libsplit::cc {

// Name and type of the hidden argument; what each component means.
inline constexpr const char* kCtxName = "__libsplit_ctx";
inline constexpr const char* kCtxType = "ulong4";
inline constexpr const char* kCtxMeaning =
    "(split_dim, first_group, full_num_groups_in_split_dim, full_global_offset_in_split_dim)";

// The builtins the prelude redefines (their value in a slice differs from
// the full launch).
const std::vector<std::string>& rewrittenBuiltins();

struct RewriteResult {
  bool ok = false;
  std::string error;   // why the program could not be rewritten
  std::string source;  // the partition-ready program
  std::vector<std::string> ctxFunctions;  // user functions given the ctx (not kernels)
};

// Rewrites the main file of the translation unit in ctx. originalName is
// what `#line` points back to.
RewriteResult rewriteForPartition(clang::ASTContext& ctx, const std::string& originalName);

}  // namespace libsplit::cc

// A ViennaCL user (its OpenCL backend, its own kernels): a conjugate-gradient
// solve of a sparse symmetric positive definite system (a 2D Laplacian on an
// n x n grid, diagonal shifted by a deterministic pattern so that it is not
// a textbook case) and a dense GEMM of two m x m matrices, both through
// ViennaCL's API. Every result is printed as the FNV-1a hash of its bits and
// a few values in hex, so that a run under the shim is compared with the
// native one bit for bit. CG's inner products are work-group reductions: a
// split that changed which work-items sum which values would show here.
// usage: viennacl_cg_gemm [GRID_N] [GEMM_M]
#define VIENNACL_WITH_OPENCL
#include <viennacl/compressed_matrix.hpp>
#include <viennacl/linalg/cg.hpp>
#include <viennacl/linalg/prod.hpp>
#include <viennacl/matrix.hpp>
#include <viennacl/vector.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

namespace {

std::uint64_t fnv1a(const std::vector<float>& values) {
  std::uint64_t h = 1469598103934665603ull;
  for (float v : values) {
    unsigned char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    for (unsigned char b : bytes) h = (h ^ b) * 1099511628211ull;
  }
  return h;
}

void print_result(const char* name, const std::vector<float>& values) {
  std::printf("%s: n=%zu fnv=%016llx first=%a mid=%a last=%a\n", name, values.size(),
              static_cast<unsigned long long>(fnv1a(values)), values.front(),
              values[values.size() / 2], values.back());
}

// 5-point Laplacian on a grid x grid mesh; the small diagonal shift
// (1 + i % 7) / 64 keeps it SPD, and ill-conditioned enough that CG takes
// tens of steps (each a handful of launches), not a few.
std::vector<std::map<unsigned, float>> shifted_laplacian(unsigned grid) {
  std::vector<std::map<unsigned, float>> rows(grid * grid);
  for (unsigned y = 0; y < grid; ++y) {
    for (unsigned x = 0; x < grid; ++x) {
      const unsigned i = y * grid + x;
      rows[i][i] = 4.0f + static_cast<float>(1 + i % 7) / 64.0f;
      if (x > 0) rows[i][i - 1] = -1.0f;
      if (x + 1 < grid) rows[i][i + 1] = -1.0f;
      if (y > 0) rows[i][i - grid] = -1.0f;
      if (y + 1 < grid) rows[i][i + grid] = -1.0f;
    }
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned grid = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 64;
  const unsigned m = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 128;

  // Conjugate gradients.
  const unsigned n = grid * grid;
  viennacl::compressed_matrix<float> a(n, n);
  viennacl::copy(shifted_laplacian(grid), a);
  std::vector<float> rhs_host(n);
  for (unsigned i = 0; i < n; ++i) rhs_host[i] = static_cast<float>((i * 37u) % 101u) / 50.0f - 1.0f;
  viennacl::vector<float> rhs(n);
  viennacl::copy(rhs_host, rhs);
  viennacl::linalg::cg_tag tag(1e-5, 500);
  viennacl::vector<float> solution = viennacl::linalg::solve(a, rhs, tag);
  std::vector<float> solution_host(n);
  viennacl::copy(solution, solution_host);
  std::printf("cg: grid=%u iterations=%u error=%a\n", grid, static_cast<unsigned>(tag.iters()), tag.error());
  print_result("cg solution", solution_host);
  // The residual computed on the device too (a sparse matrix-vector product).
  viennacl::vector<float> residual = viennacl::linalg::prod(a, solution);
  residual -= rhs;
  std::printf("cg residual norm_2=%a\n", static_cast<double>(viennacl::linalg::norm_2(residual)));

  // Dense GEMM (row-major matrices), then C^T * B to use the transposed kernel.
  std::vector<float> a_host(m * m), b_host(m * m);
  for (unsigned i = 0; i < m * m; ++i) {
    a_host[i] = static_cast<float>(i % 13) * 0.125f - 0.5f;
    b_host[i] = static_cast<float>((i * 7) % 11) * 0.25f - 1.0f;
  }
  viennacl::matrix<float> da(m, m), db(m, m), dc(m, m), dd(m, m);
  viennacl::fast_copy(a_host.data(), a_host.data() + a_host.size(), da);
  viennacl::fast_copy(b_host.data(), b_host.data() + b_host.size(), db);
  dc = viennacl::linalg::prod(da, db);
  dd = viennacl::linalg::prod(viennacl::trans(dc), db);
  std::vector<float> c_host(m * m), d_host(m * m);
  viennacl::fast_copy(dc, c_host.data());
  viennacl::fast_copy(dd, d_host.data());
  std::printf("gemm: m=%u\n", m);
  print_result("gemm A*B", c_host);
  print_result("gemm (A*B)^T*B", d_host);
  return 0;
}

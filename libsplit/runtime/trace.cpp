#include "trace.h"

#include <cstdlib>

namespace libsplit {

namespace {
Tracer* g_timeline_owner = nullptr;
void write_at_exit() {
  if (g_timeline_owner) g_timeline_owner->write_timeline();
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out;
}
}  // namespace

Tracer::Tracer(std::string csv_path, std::string timeline_path)
    : timeline_path_(std::move(timeline_path)) {
  if (!csv_path.empty()) {
    csv_ = fopen(csv_path.c_str(), "a");
    if (!csv_) {
      fprintf(stderr, "libsplit: cannot open LIBSPLIT_TRACE file %s\n", csv_path.c_str());
    } else if (ftell(csv_) == 0) {
      fputs("launch,kernel,device,split_dim,first_group,groups,total_groups,ms_kernel,"
            "ms_transfer,granularity,predicted_ms,bytes_to_device,bytes_to_host,ms_gather,racy_units\n",
            csv_);
      fflush(csv_);
    }
  }
  if (!timeline_path_.empty()) {
    g_timeline_owner = this;
    atexit(write_at_exit);
  }
}

Tracer::~Tracer() {
  if (csv_) fclose(csv_);
}

void Tracer::row(const SubKernelRow& r) {
  std::lock_guard lock(mutex_);
  if (!csv_) return;
  fprintf(csv_, "%llu,%s,%u,%u,%llu,%llu,%llu,%.6f,%.6f,%.6f,%.6f,%llu,%llu,%.6f,%llu\n",
          static_cast<unsigned long long>(r.launch), r.kernel.c_str(), r.device, r.split_dim,
          static_cast<unsigned long long>(r.first_group), static_cast<unsigned long long>(r.groups),
          static_cast<unsigned long long>(r.total_groups), r.ms_kernel, r.ms_transfer,
          r.granularity, r.predicted_ms, static_cast<unsigned long long>(r.bytes_to_device),
          static_cast<unsigned long long>(r.bytes_to_host), r.ms_gather,
          static_cast<unsigned long long>(r.racy_units));
  fflush(csv_);
}

void Tracer::span(const std::string& name, const std::string& category, unsigned device,
                  uint64_t begin_ns, uint64_t end_ns) {
  if (timeline_path_.empty()) return;
  std::lock_guard lock(mutex_);
  spans_.push_back({name, category, device, begin_ns, end_ns});
}

void Tracer::write_timeline() {
  std::lock_guard lock(mutex_);
  if (timeline_path_.empty()) return;
  FILE* f = fopen(timeline_path_.c_str(), "w");
  if (!f) return;
  uint64_t t0 = spans_.empty() ? 0 : spans_.front().begin;
  for (auto& s : spans_) t0 = std::min(t0, s.begin);
  fputs("{\"traceEvents\":[\n", f);
  for (size_t i = 0; i < spans_.size(); ++i) {
    auto& s = spans_[i];
    fprintf(f,
            "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,"
            "\"dur\":%.3f}%s\n",
            json_escape(s.name).c_str(), s.category.c_str(), s.device, (s.begin - t0) / 1e3,
            (s.end - s.begin) / 1e3, i + 1 < spans_.size() ? "," : "");
  }
  fputs("],\"displayTimeUnit\":\"ms\"}\n", f);
  fclose(f);
}

}  // namespace libsplit

// Device binaries of the programs libsplit builds on its own contexts (the
// original source while a program is preparing, the partition-ready one),
// kept across runs: building from source costs a driver compilation on
// every device at every start, loading a binary a fraction of it. Key:
// SHA-256 of the source, the build options and each device's name, driver
// and platform versions; files under <cache dir>/device-binaries/ (0700 /
// 0600, atomic). A binary the driver refuses is rebuilt from source.
#pragma once

#include <CL/cl.h>

#include <optional>
#include <string>
#include <vector>

namespace libsplit {

// <cache dir>/device-binaries.
std::string device_binaries_dir();

std::string device_binary_key(const std::string& source, const std::string& options,
                              const std::vector<cl_device_id>& devices);

// One binary per device (in the key's device order), or nullopt.
std::optional<std::vector<std::vector<unsigned char>>> load_device_binaries(const std::string& key,
                                                                            size_t devices);

// Whether binaries are stored under `key` (a file test, nothing read).
bool has_device_binaries(const std::string& key);

// A source program built for `ids` on platform slot `slot`'s context from the
// binaries stored under `key` (those of an earlier build of the same source
// with `options`); null when none are stored or the driver refuses them.
cl_program program_from_device_binaries(unsigned slot, const std::vector<cl_device_id>& ids,
                                        const std::string& key, const std::string& options);

// Stores the binaries of a built program (failures only cost the next start).
void store_device_binaries(const std::string& key, cl_program built, size_t devices);

}  // namespace libsplit

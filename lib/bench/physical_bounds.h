// Rates no machine can copy at: the last line of defence against a number
// that is not a measurement. A result beyond them is "not measurable",
// never a bandwidth.
//
// The bounds must never flag real hardware, so they are absolute and far
// above every shipping memory system, not relative to this host's memcpy:
// a real accelerator beats the host's single-thread memcpy by a wide margin
// (an H100's device-to-device copy runs at over 1.3 TB/s against a host
// thread's 10-20 GB/s; pinned host-to-device over NVLink-C2C on a GH200
// reaches about 400 GB/s). The bound per direction, and why:
//
//   h2d, d2h   1 PB/s (10^15 bytes/s). One side of the copy is host memory,
//              which the host's own memory system must read or write. The
//              fastest memory any shipping host has is its L1 cache: every
//              core of a two-socket, 2 x 192-core server storing 64 bytes a
//              cycle at 5 GHz is about 250 TB/s, and host DRAM, HBM on an
//              APU (MI300A: 5.3 TB/s) and every host link are far below
//              that. 1 PB/s is four times it.
//   d2d        100 PB/s. Both sides are the device's own memory. The widest
//              memory system shipping on one device is the on-wafer SRAM of
//              a Cerebras WSE-3, 21 PB/s; GPUs' HBM is below 10 TB/s.
//              100 PB/s is about five times the wafer.
//
// These catch what no other evidence shows (a plugin that coalesces
// repeated copies into one; a clock interval of almost nothing). The usual
// lie, a completion signalled before the bytes arrived, is caught by
// evidence instead (completion_probe.h): a read-back right after the
// signal that does not yet match, or a host callback queued behind the
// copies that has not yet run. The bounds alone would let such a plugin
// through at any rate below them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "bench/bench_report.h"

namespace sectl::bench {

// The most GB/s (10^9 bytes/s) any machine can copy in `direction`.
double PhysicalBoundGbps(Direction direction);

// Why `gbps`, as `clock` measured it ("the host's clock"), cannot be a
// copy in `direction`; nullopt when it can. Not finite (a zero interval)
// is impossible too.
std::optional<std::string> WhyPhysicallyImpossible(Direction direction, double gbps,
                                                   std::string_view clock);

}  // namespace sectl::bench

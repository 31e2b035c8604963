// Merging the conformance reports of several shards or machines into one,
// as `sectl report merge` does.
#pragma once

#include <vector>

#include "base/error.h"
#include "report/conform_report.h"

namespace sectl::report {

// One report holding every result of `reports`, sorted by id and then
// repetition, with the summary recomputed. The reports must judge the same
// plugin (by SHA-256) on the same device by the same rules (schema version,
// profile, subject, TensorFlow version), and no result may be in two of
// them; otherwise an error names the conflict. A report that names no device
// (older than schema_version 6) is taken to be of the others' device. The rest comes from the first
// report, except the earliest start, the longest duration, and a load error if any report has one.
// Shards of a sharded run that are not among `reports` are named in missing_shards, which leaves
// the merged report incomplete; reports of differently sharded runs, or one shard given twice, are
// an error.
Expected<ConformReport> MergeReports(std::vector<ConformReport> reports);

}  // namespace sectl::report

// The advisor's words: the diagnosis, each change's "why" and "cost", and the number
// formats they use. Kept apart from the search (advisor.cpp) so that the loop reads as one.
#pragma once

#include "advisor/advisor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iterscope {

std::string groupedInteger(int64_t v);                          // 8192 -> "8,192"
std::string plainNumber(double v);                              // 25 -> "25", 1.25 -> "1.25"
std::string ratioText(double ratio);                            // 1.134 -> "1.13x"
std::string memoryText(const Prediction& p, const Scenario& s); // "18.2 GB of 16.0 GB"

std::string precisionWords(Precision p);
std::string syncWords(SyncStrategy s);
std::string parallelWords(ParallelStrategy p);
std::string networkRateWords(double nic_gbps); // 12.5 -> "100 Gb/s per NIC"

// What a change costs beyond trying it: a larger global batch (the optimisation changes),
// more or other hardware (its price where a profile has one), stale gradients. None for a
// change that is free to try.
std::optional<std::string> costOf(const Scenario& base, const Prediction& base_prediction,
                                  const Scenario& changed, const Prediction& changed_prediction);

// One line: why the change helps (or does not), from the two predictions.
std::string whyItHelps(const Scenario& base, const Prediction& base_prediction,
                       const Scenario& changed, const Prediction& changed_prediction,
                       const std::vector<Change>& parts);

} // namespace iterscope
